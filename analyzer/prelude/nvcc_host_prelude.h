// streamcheck lint: host-side declarations nvcc provides and clang's CUDA
// headers do not. Force-included (after clang's CUDA runtime wrapper) into
// every CUDA translation unit the lint parses; it is never compiled into a
// program.
//
// nvcc's crt/math_functions.h declares the integer and floating-point
// min/max family __host__ __device__, so host code calls `max(a, b)` freely;
// clang's wrapper makes them __device__ only ("no matching function for call
// to 'max'" in host code). These host overloads mirror nvcc's signatures so
// overload resolution picks the same one nvcc would.
#pragma once
#pragma clang system_header

#if defined(__CUDA__)

#define STREAMCHECK_MINMAX_(T, R, NAME, OP) \
  static inline __host__ R NAME(const T a, const T b) { return static_cast<R>(a OP b ? a : b); }
#define STREAMCHECK_MINMAX_MIXED_(A, B, R, NAME, OP)                           \
  static inline __host__ R NAME(const A a, const B b) {                         \
    return static_cast<R>(a) OP static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); \
  }
#define STREAMCHECK_MINMAX_FAMILY_(NAME, OP)                                                 \
  STREAMCHECK_MINMAX_(int, int, NAME, OP)                                                    \
  STREAMCHECK_MINMAX_(unsigned int, unsigned int, NAME, OP)                                  \
  STREAMCHECK_MINMAX_MIXED_(int, unsigned int, unsigned int, NAME, OP)                       \
  STREAMCHECK_MINMAX_MIXED_(unsigned int, int, unsigned int, NAME, OP)                       \
  STREAMCHECK_MINMAX_(long int, long int, NAME, OP)                                          \
  STREAMCHECK_MINMAX_(unsigned long int, unsigned long int, NAME, OP)                        \
  STREAMCHECK_MINMAX_MIXED_(long int, unsigned long int, unsigned long int, NAME, OP)        \
  STREAMCHECK_MINMAX_MIXED_(unsigned long int, long int, unsigned long int, NAME, OP)        \
  STREAMCHECK_MINMAX_(long long int, long long int, NAME, OP)                                \
  STREAMCHECK_MINMAX_(unsigned long long int, unsigned long long int, NAME, OP)              \
  STREAMCHECK_MINMAX_MIXED_(long long int, unsigned long long int, unsigned long long int, NAME, OP) \
  STREAMCHECK_MINMAX_MIXED_(unsigned long long int, long long int, unsigned long long int, NAME, OP) \
  STREAMCHECK_MINMAX_(float, float, NAME, OP)                                                \
  STREAMCHECK_MINMAX_(double, double, NAME, OP)                                              \
  STREAMCHECK_MINMAX_MIXED_(float, double, double, NAME, OP)                                 \
  STREAMCHECK_MINMAX_MIXED_(double, float, double, NAME, OP)

STREAMCHECK_MINMAX_FAMILY_(min, <)
STREAMCHECK_MINMAX_FAMILY_(max, >)
STREAMCHECK_MINMAX_(unsigned int, unsigned int, umin, <)
STREAMCHECK_MINMAX_(unsigned int, unsigned int, umax, >)
STREAMCHECK_MINMAX_(long long int, long long int, llmin, <)
STREAMCHECK_MINMAX_(long long int, long long int, llmax, >)
STREAMCHECK_MINMAX_(unsigned long long int, unsigned long long int, ullmin, <)
STREAMCHECK_MINMAX_(unsigned long long int, unsigned long long int, ullmax, >)

#undef STREAMCHECK_MINMAX_FAMILY_
#undef STREAMCHECK_MINMAX_MIXED_
#undef STREAMCHECK_MINMAX_

#endif  // __CUDA__

// nvcc's version macros, which code tests to pick API variants (clang defines
// CUDA_VERSION from the toolkit it found, but not these).
#if defined(__CUDA__) && defined(CUDA_VERSION) && !defined(__CUDACC_VER_MAJOR__)
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0
#endif

// nvcc defines __CUDACC__ as 1; clang's CUDA wrapper defines it empty, so a
// header's `#if __CUDACC__` is an error under clang ("expected value in
// expression") and stops what follows from being declared.
#if defined(__CUDA__)
#undef __CUDACC__
#define __CUDACC__ 1
#endif
