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

#if defined(__CUDA__)
// nvcc's crt/common_functions.h includes these C headers in every CUDA
// source (cuda_runtime.h brings it), so programs call clock(), memcpy() or
// printf() without including them; clang's wrapper does not.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// nvcc's crt/math_functions.h declares the classification functions
// __host__ __device__ in the global namespace; clang's wrapper declares
// __device__ ones there, so a host function's unqualified `isfinite(x)` finds
// no host overload unless <math.h> brought std's in. Bring them, as <math.h>
// does (llm.c's dev/cuda/common.h calls isfinite in host code).
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// The cache-hint stores of CUDA's sm_32_intrinsics.h (__stwb, __stcg, __stcs)
// are not in clang's CUDA headers, which have only __stwt: declared here for
// the kernels that call them (llm.c stores with __stcs), so that the host
// parse does not mark those kernels as not compiling.
#define STREAMCHECK_CACHE_STORES_(T)       \
  __device__ void __stwb(T* ptr, T value); \
  __device__ void __stcg(T* ptr, T value); \
  __device__ void __stcs(T* ptr, T value);
STREAMCHECK_CACHE_STORES_(char)
STREAMCHECK_CACHE_STORES_(signed char)
STREAMCHECK_CACHE_STORES_(char2)
STREAMCHECK_CACHE_STORES_(char4)
STREAMCHECK_CACHE_STORES_(short)
STREAMCHECK_CACHE_STORES_(short2)
STREAMCHECK_CACHE_STORES_(short4)
STREAMCHECK_CACHE_STORES_(int)
STREAMCHECK_CACHE_STORES_(int2)
STREAMCHECK_CACHE_STORES_(int4)
STREAMCHECK_CACHE_STORES_(long long)
STREAMCHECK_CACHE_STORES_(longlong2)
STREAMCHECK_CACHE_STORES_(unsigned char)
STREAMCHECK_CACHE_STORES_(uchar2)
STREAMCHECK_CACHE_STORES_(uchar4)
STREAMCHECK_CACHE_STORES_(unsigned short)
STREAMCHECK_CACHE_STORES_(ushort2)
STREAMCHECK_CACHE_STORES_(ushort4)
STREAMCHECK_CACHE_STORES_(unsigned int)
STREAMCHECK_CACHE_STORES_(uint2)
STREAMCHECK_CACHE_STORES_(uint4)
STREAMCHECK_CACHE_STORES_(unsigned long long)
STREAMCHECK_CACHE_STORES_(ulonglong2)
STREAMCHECK_CACHE_STORES_(float)
STREAMCHECK_CACHE_STORES_(float2)
STREAMCHECK_CACHE_STORES_(float4)
STREAMCHECK_CACHE_STORES_(double)
STREAMCHECK_CACHE_STORES_(double2)
#undef STREAMCHECK_CACHE_STORES_
#endif  // __CUDA__
