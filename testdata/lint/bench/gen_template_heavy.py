#!/usr/bin/env python3
"""Writes a large template-heavy CUDA translation unit: Thrust and CUB
headers, expression templates, many kernel and host-function instantiations
with streams and events (so the lint has work to do in every function)."""
import sys

N = int(sys.argv[2]) if len(sys.argv) > 2 else 150
out = [r'''#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/functional.h>
#include <cub/cub.cuh>
#include <tuple>
#include <utility>

template <typename T, int K> struct Vec { T v[K]; };
template <typename L, typename R> struct Add {
  L l; R r;
  __host__ __device__ auto operator()(int i) const { return l(i) + r(i); }
};
template <typename T> struct Load {
  const T* p;
  __host__ __device__ T operator()(int i) const { return p[i]; }
};
template <typename E, typename T>
__global__ void eval(E e, T* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = e(i); }
template <typename T, int K>
__global__ void scale(T* data, int n) { int i = threadIdx.x; if (i < n) data[i] = data[i] * T(K); }
template <typename T> struct Square { __host__ __device__ T operator()(T x) const { return x * x; } };
''']
for i in range(N):
    t = ["float", "double", "int"][i % 3]
    out.append(f'''
template <typename T>
T pipeline_{i}(T* a, T* b, int n, cudaStream_t s1, cudaStream_t s2, cudaEvent_t e) {{
  Add<Load<T>, Load<T>> expr{{Load<T>{{a}}, Load<T>{{b}}}};
  eval<<<(n + 255) / 256, 256, 0, s1>>>(expr, a, n);
  scale<T, {i % 7 + 1}><<<1, 256, 0, s1>>>(a, n);
  cudaEventRecord(e, s1);
  cudaStreamWaitEvent(s2, e, 0);
  scale<T, {i % 5 + 2}><<<1, 256, 0, s2>>>(a, n);
  thrust::device_ptr<T> p(b);
  T r = thrust::transform_reduce(p, p + n, Square<T>(), T(0), thrust::plus<T>());
  std::tuple<Vec<T, {i % 4 + 1}>, int> tup{{}};
  return r + T(std::get<1>(tup));
}}
template {t} pipeline_{i}<{t}>({t}*, {t}*, int, cudaStream_t, cudaStream_t, cudaEvent_t);
''')
out.append('''
void sort_keys(int* keys, int n) {
  thrust::device_ptr<int> p(keys);
  thrust::sort(p, p + n);
  size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, keys, n);
}
''')
open(sys.argv[1], "w").write("".join(out))
