#!/usr/bin/env python3
"""Writes the lint-budget inputs of issue 29 (one huge host function each):

  long N         one straight-line function of about N lines: producer kernels,
                 event joins, consumer kernels and copies over disjoint slices of
                 one buffer, nothing synchronized until the end (so all of it
                 stays pending), and a real race every 250 slices (findings)
  racy-blocks N  N sequential if/else blocks, each writing a slice on one of two
                 streams, then a copy on a third stream reading the whole
                 buffer: it races with every earlier write (findings grow as N^2)
  clean-blocks N N sequential if/else blocks, the write's stream recording one
                 event in either arm and the reader waiting on it: no race

  gen_budget.py SHAPE N OUT.cu
"""
import sys

shape, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
head = r'''#include <cuda_runtime.h>
__global__ void write_slice(float* d, int n) { int i = threadIdx.x; if (i < n) d[i] = i; }
__global__ void read_slice(const float* d, float* out, int n) { int i = threadIdx.x; if (i < n) out[i] = d[i]; }
'''
lines = [head]
if shape == 'long':
    lines.append('float big(float* d, float* out, float* h, int n) {')
    lines.append('  cudaStream_t s0, s1, s2;')
    lines.append('  cudaEvent_t e0;')
    lines.append('  cudaStreamCreate(&s0); cudaStreamCreate(&s1); cudaStreamCreate(&s2); cudaEventCreate(&e0);')
    lines.append('  float sum = 0;')
    i = 0
    while len(lines) < n:
        off = 64 * i
        lines.append(f'  write_slice<<<1, 64, 0, s0>>>(d + {off}, 64);')
        lines.append('  cudaEventRecord(e0, s0);')
        lines.append('  cudaStreamWaitEvent(s1, e0, 0);')
        lines.append(f'  read_slice<<<1, 64, 0, s1>>>(d + {off}, out + {off}, 64);')
        lines.append(f'  cudaMemcpyAsync(h + {off}, out + {off}, 256, cudaMemcpyDeviceToHost, s1);')
        if i % 250 == 249:
            lines.append(f'  write_slice<<<1, 64, 0, s2>>>(d + {off}, 64);  // races with read_slice on s1')
        i += 1
    lines.append('  cudaDeviceSynchronize();')
    lines.append('  sum += h[0];')
    lines.append('  return sum;')
    lines.append('}')
elif shape in ('racy-blocks', 'clean-blocks'):
    racy = shape == 'racy-blocks'
    lines.append('void blocks(float* d, float* out, float* h, int n, const int* flags) {')
    lines.append('  cudaStream_t s1, s2, s3;')
    lines.append('  cudaEvent_t e;')
    lines.append('  cudaStreamCreate(&s1); cudaStreamCreate(&s2); cudaStreamCreate(&s3); cudaEventCreate(&e);')
    for i in range(n):
        off = 64 * i
        if racy:
            lines.append(f'  if (flags[{i}]) {{ write_slice<<<1, 64, 0, s1>>>(d + {off}, 64); }} '
                         f'else {{ write_slice<<<1, 64, 0, s2>>>(d + {off}, 64); }}')
            lines.append(f'  cudaMemcpyAsync(h, d, {64 * 4 * n}, cudaMemcpyDeviceToHost, s3);')
        else:
            lines.append(f'  if (flags[{i}]) {{ write_slice<<<1, 64, 0, s1>>>(d + {off}, 64); cudaEventRecord(e, s1); }} '
                         f'else {{ write_slice<<<1, 64, 0, s2>>>(d + {off}, 64); cudaEventRecord(e, s2); }}')
            lines.append('  cudaStreamWaitEvent(s3, e, 0);')
            lines.append(f'  read_slice<<<1, 64, 0, s3>>>(d + {off}, out + {off}, 64);')
    lines.append('  cudaDeviceSynchronize();')
    lines.append('}')
else:
    sys.exit('shape: long | racy-blocks | clean-blocks')
open(path, 'w').write('\n'.join(lines) + '\n')
