#!/usr/bin/env python3
"""Writes compile_commands.json for the real projects the lint was measured on
(docs/lint.md, "Results on real code"), from each project's Makefile flags.

    real_mkdb.py PROJECT_DIR {nccl-tests|multi-gpu-programming-models|CUDALibrarySamples}

The projects are fetched by hand at the commits docs/lint.md names and never
committed here. CUDA 13's headers and Open MPI are taken from their Debian
places; set CUDA_HOME and MPI_INCLUDE to move them.
"""
import glob
import json
import os
import sys

CUDA = os.environ.get('CUDA_HOME', '/usr/local/cuda')
NVCC = f'{CUDA}/bin/nvcc'
MPI = '-I' + os.environ.get('MPI_INCLUDE', '/usr/lib/x86_64-linux-gnu/openmpi/include')


def entry(d, rel, flags, compiler=NVCC):
    f = os.path.join(d, rel)
    return {'directory': d, 'file': f, 'command': f'{compiler} {flags} -c {f} -o {os.path.basename(rel)}.o'}


def nccl_tests(d):
    # src/Makefile: nvcc on src/*.cu (C++17: CUDA 13's CCCL needs it), timer.cc by the host compiler.
    flags = f'-std=c++17 -O3 -I{CUDA}/include -Isrc -Ios -DNCCL_OS_LINUX -DMPI_SUPPORT {MPI} -x cu'
    e = [entry(d, os.path.relpath(f, d), flags) for f in sorted(glob.glob(d + '/src/*.cu'))]
    e.append(entry(d, 'src/timer.cc', '-std=c++17 -O3 -Isrc -Ios -DNCCL_OS_LINUX', '/usr/bin/g++'))
    return e, []


def multi_gpu_programming_models(d):
    # Per-directory Makefiles say -std=c++14; CUDA 13's CUB requires C++17, so
    # C++17 as the build with this toolkit must. SKIP_CUDA_AWARENESS_CHECK is
    # the Makefiles' switch for an MPI without mpi-ext.h's CUDA-aware flag.
    # nvshmem/ needs NVSHMEM's headers (not here): left out, and said so.
    e, left_out = [], []
    for f in sorted(glob.glob(d + '/*/*.cu') + glob.glob(d + '/*/*.cpp')):
        rel = os.path.relpath(f, d)
        if rel.startswith('nvshmem'):
            left_out.append((rel, 'needs NVSHMEM headers'))
            continue
        if f.endswith('.cpp'):
            e.append(entry(d, rel, f'-DUSE_NVTX -DSKIP_CUDA_AWARENESS_CHECK -I{CUDA}/include {MPI} -std=c++17 -fopenmp',
                           '/usr/bin/mpicxx'))
        else:
            e.append(entry(d, rel, f'-Xcompiler -fopenmp -lineinfo -DUSE_NVTX -DHAVE_CUB {MPI} -std=c++17 -arch=sm_80'))
    return e, left_out


def cuda_library_samples(d):
    # cuSOLVER (all samples), cuFFT (the .cpp samples), cuRAND host (each generator's uniform sample).
    e = []
    for f in sorted(glob.glob(d + '/cuSOLVER/*/*.cu')):
        e.append(entry(d, os.path.relpath(f, d), f'-std=c++17 -I{d}/cuSOLVER/utils'))
    for f in sorted(glob.glob(d + '/cuFFT/*/*.cpp')):
        e.append(entry(d, os.path.relpath(f, d), f'-std=c++17 -I{CUDA}/include -I{d}/cuFFT/utils', '/usr/bin/g++'))
    for f in sorted(glob.glob(d + '/cuRAND/Host/*/*uniform*.cpp')):
        e.append(entry(d, os.path.relpath(f, d), f'-std=c++17 -I{CUDA}/include -I{d}/cuRAND/utils', '/usr/bin/g++'))
    return e, []


PROJECTS = {'nccl-tests': nccl_tests, 'multi-gpu-programming-models': multi_gpu_programming_models,
            'CUDALibrarySamples': cuda_library_samples}

if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[2] not in PROJECTS:
        sys.exit(__doc__)
    d = os.path.abspath(sys.argv[1])
    entries, left_out = PROJECTS[sys.argv[2]](d)
    with open(os.path.join(d, 'compile_commands.json'), 'w') as out:
        json.dump(entries, out, indent=1)
    print(f'{len(entries)} entries', file=sys.stderr)
    for rel, why in left_out:
        print(f'left out: {rel} ({why})', file=sys.stderr)
