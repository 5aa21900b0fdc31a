#!/usr/bin/env python3
"""Writes compile_commands.json for the real projects the lint was measured on
(docs/lint-results.md), from each project's Makefile flags.

    real_mkdb.py PROJECT_DIR {nccl-tests|multi-gpu-programming-models|CUDALibrarySamples|nvbench|faiss|
                              llm.c|popsift|tiny-cuda-nn}

The projects are fetched by hand at the commits docs/lint.md names and never
committed here. CUDA 13's headers and Open MPI are taken from their Debian
places; set CUDA_HOME and MPI_INCLUDE to move them. nvbench needs fmt 12
(FMT_INCLUDE, an include/ of fmt's 12.2.0 tag; Debian's 9.1 is too old) and
the headers its CMake (and rapids-cmake) would configure, which this writes under
PROJECT_DIR/.streamcheck-gen; so does popsift (its configured headers, and stand-ins for
what CUDA 13 removed and popsift still includes). tiny-cuda-nn wants its submodules
(cutlass, fmt) checked out under dependencies/ at the commits it pins.
"""
import glob
import json
import os
import re
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


def nvbench(d):
    # nvbench/CMakeLists.txt's sources (CUPTI on: its headers are in the toolkit;
    # NVML off: no nvml.h here), exec/, examples/ and testing/. .cxx files are
    # the host compiler's, .cu nvcc's. The configured headers (config.cuh,
    # cli_help*.cuh, the git revision) are written as CMake would.
    gen = os.path.join(d, '.streamcheck-gen')
    os.makedirs(gen + '/nvbench/internal', exist_ok=True)
    os.makedirs(gen + '/nvbench/detail', exist_ok=True)
    config = open(d + '/nvbench/config.cuh.in').read()
    config = config.replace('#cmakedefine NVBENCH_HAS_NVML', '/* #undef NVBENCH_HAS_NVML */')
    config = config.replace('#cmakedefine NVBENCH_HAS_CUPTI', '#define NVBENCH_HAS_CUPTI')
    open(gen + '/nvbench/config.cuh', 'w').write(config)
    for md, name in (('cli_help.md', 'cli_help'), ('cli_help_axis.md', 'cli_help_axis')):
        text = open(f'{d}/docs/{md}').read()
        open(f'{gen}/nvbench/internal/{name}.cuh', 'w').write(
            f'#include <string>\nnamespace  {{\nconst std::string {name}_text =\nR"expected({text})expected";\n}}\n')
    open(gen + '/nvbench/detail/git_revision.cuh', 'w').write(
        '#pragma once\n#define NVBENCH_GIT_BRANCH "main"\n#define NVBENCH_GIT_SHA1 "unknown"\n'
        '#define NVBENCH_GIT_VERSION "unknown"\n#define NVBENCH_GIT_IS_DIRTY\n')
    open(gen + '/nvbench/detail/version.cuh', 'w').write(  # rapids_cmake_write_version_file, project(VERSION 0.1.0)
        '#pragma once\n#define NVBENCH_VERSION_MAJOR 0\n#define NVBENCH_VERSION_MINOR 1\n#define NVBENCH_VERSION_PATCH 0\n'
        '#define NVBENCH_VERSION (NVBENCH_VERSION_MAJOR * 100000 + NVBENCH_VERSION_MINOR * 100 + NVBENCH_VERSION_PATCH)\n')
    fmt = os.environ.get('FMT_INCLUDE', '/tmp/proj2/deps/fmt/include')
    common = f'-std=c++17 -I{d} -I{gen} -I{fmt} -I{CUDA}/include'
    lib = f'{common} -DNVBENCH_NO_IMPLICIT_SYSTEM_HEADER'
    e = []
    for f in sorted(glob.glob(d + '/nvbench/*.cu') + glob.glob(d + '/nvbench/*.cxx') +
                    glob.glob(d + '/nvbench/*/*.cu') + glob.glob(d + '/nvbench/*/*.cxx')):
        rel = os.path.relpath(f, d)
        if rel.endswith('nvml.cxx') or rel.endswith('json_printer.cxx') or rel.endswith('cupti_profiler_nvpw.cxx'):
            continue  # NVML off; json_printer.cu is used from CUDA 11.1; the NVPW variant only without cupti_profiler_host.h
        if f.endswith('.cu'):
            e.append(entry(d, rel, lib + ' -x cu'))
        else:
            e.append(entry(d, rel, lib, '/usr/bin/g++'))
    for f in sorted(glob.glob(d + '/exec/*.cu') + glob.glob(d + '/examples/*.cu') + glob.glob(d + '/testing/*.cu')):
        e.append(entry(d, os.path.relpath(f, d), f'{common} -I{d}/testing -x cu'))
    return e, [('nvbench/internal/nvml.cxx', 'NVML off: no nvml.h in this toolkit'),
               ('nvbench/json_printer.cxx', 'CMake builds it only for CUDA < 11.1, json_printer.cu otherwise'),
               ('nvbench/cupti_profiler_nvpw.cxx', 'CMake builds it only when cupti_profiler_host.h is missing')]


def faiss(d):
    # faiss/gpu/CMakeLists.txt's FAISS_GPU_SRC without the 22 BlockSelect/WarpSelect
    # instantiations (utils/blockselect/*, utils/warpselect/*: one kernel for a
    # range of k each, and a launcher that launches it once on the stream it is
    # given: nothing to order, a full parse each) and without cuVS
    # (FAISS_ENABLE_CUVS off, as by default).
    gpu = d + '/faiss/gpu'
    srcs = []
    text = open(gpu + '/CMakeLists.txt').read()
    block = text[text.index('set(FAISS_GPU_SRC'):]
    block = block[:block.index(')')]
    left_out = []
    for rel in re.findall(r'\S+\.(?:cu|cpp)', block):
        if rel.startswith(('utils/blockselect/', 'utils/warpselect/')):
            left_out.append(('faiss/gpu/' + rel, 'one k-selection kernel and its one launch on a given stream: nothing to order'))
            continue
        srcs.append('faiss/gpu/' + rel)
    e = []
    for rel in srcs:
        if rel.endswith('.cu'):
            e.append(entry(d, rel, f'-std=c++17 -I{d} --expt-extended-lambda --expt-relaxed-constexpr -x cu'))
        else:
            e.append(entry(d, rel, f'-std=c++17 -I{d} -I{CUDA}/include', '/usr/bin/g++'))
    return e, left_out


def llm_c(d):
    # The Makefile on Linux with NCCL and MPI found, PRECISION=BF16 (the default), sm_90.
    base = ('--threads=0 -t=0 --use_fast_math -std=c++17 -O3 --generate-code arch=compute_90,code=[compute_90,sm_90] '
            f'-DMULTI_GPU -DUSE_MPI {MPI}')
    e = []
    for rel, flags in [('train_gpt2.cu', '-DENABLE_BF16'), ('test_gpt2.cu', '-DENABLE_BF16'),
                       ('profile_gpt2.cu', '-DENABLE_BF16 -lineinfo'), ('train_gpt2_fp32.cu', ''),
                       ('test_gpt2_fp32.cu', ''), ('llmc/cudnn_att.cpp', '-DENABLE_BF16 -DENABLE_CUDNN')]:
        e.append(entry(d, rel, f'{base} {flags}'))
    return e, []


def popsift(d):
    # src/CMakeLists.txt's CUDA_ADD_LIBRARY(popsift ...) sources with the top CMakeLists'
    # CUDA_NVCC_FLAGS (--default-stream legacy, -fPIC), sm_75, the configured headers as
    # CMake writes them (grid filter on, NVTX off, shfl_down_sync on). CUDA 13 refuses the
    # code as written, as nvcc 13 would: C++17 for its C++14 (CCCL 3), an empty
    # texture_fetch_functions.h (gone; s_extrema.cu includes it, uses none of it), a
    # thrust::identity (gone in CCCL 3; s_filtergrid.cu:295), and CCCL_DISABLE_NVTX
    # (CCCL's NVTX header meets popsift's own `#define nvtxRangePop()`).
    gen = os.path.join(d, '.streamcheck-gen')
    os.makedirs(gen + '/popsift', exist_ok=True)
    cfg = open(d + '/cmake/sift_config.h.in').read()
    for k, v in (('HAVE_SHFL_DOWN_SYNC', '1'), ('PopSift_HAVE_NORMF', '0'), ('DISABLE_GRID_FILTER', '0'),
                 ('PopSift_USE_NVTX', '0')):
        cfg = cfg.replace(f'@{k}@', v)
    open(gen + '/popsift/sift_config.h', 'w').write(cfg)
    ver = open(d + '/cmake/version.hpp.in').read()
    for k, v in (('PROJECT_VERSION_MAJOR', '1'), ('PROJECT_VERSION_MINOR', '0'), ('PROJECT_VERSION_PATCH', '0'),
                 ('PROJECT_VERSION', '1.0.0')):
        ver = ver.replace(f'@{k}@', v)
    open(gen + '/popsift/version.hpp', 'w').write(ver)
    open(gen + '/texture_fetch_functions.h', 'w').write('#pragma once\n#include <texture_indirect_functions.h>\n')
    open(gen + '/thrust_identity.h', 'w').write(
        '#pragma once\nnamespace thrust { template <class T> struct identity {\n'
        '  __host__ __device__ const T& operator()(const T& x) const { return x; } }; }\n')
    block = open(d + '/src/CMakeLists.txt').read()
    block = block[block.index('CUDA_ADD_LIBRARY(popsift'):]
    block = block[:block.index(')')]
    inc = f'-I{d}/src -I{gen} -I{gen}/popsift -I{CUDA}/include -DCCCL_DISABLE_NVTX'
    e = []
    for rel in re.findall(r'popsift/\S+\.(?:cu|cpp)\b', block):
        flags = f'-std=c++17 {inc} -gencode arch=compute_75,code=sm_75 --default-stream legacy -Xcompiler -fPIC -O3'
        if rel.endswith('s_filtergrid.cu'):
            flags += f' -include {gen}/thrust_identity.h'
        e.append(entry(d, 'src/' + rel, flags + (' -x cu' if rel.endswith('.cu') else '')))
    return e, [('src/application/*.cpp', 'the command-line programs: no stream code of their own, and they need '
                                         'Boost headers not installed here')]


def tiny_cuda_nn(d):
    # The top CMakeLists: C++17, TCNN_DEFINITIONS for a minimum arch of 86 (half precision,
    # fully fused MLP, RTC with fast math, CMRC), CUDA_NVCC_FLAGS, TCNN_INCLUDES.
    defs = '-DTCNN_HALF_PRECISION=1 -DTCNN_RTC -DTCNN_RTC_USE_FAST_MATH -DTCNN_MIN_GPU_ARCH=86 -DTCNN_CMRC'
    inc = ' '.join(f'-I{d}/{p}' for p in ('include', 'dependencies', 'dependencies/cutlass/include',
                                         'dependencies/cutlass/tools/util/include', 'dependencies/fmt/include'))
    nv = ('-Xcompiler=-Wno-float-conversion -Xcompiler=-fno-strict-aliasing --use_fast_math --extended-lambda '
          '--expt-relaxed-constexpr')
    flags = f'-std=c++17 {defs} {inc} {nv} -gencode arch=compute_86,code=sm_86 -x cu'
    files = ['src/cpp_api.cu', 'src/cutlass_mlp.cu', 'src/fully_fused_mlp.cu', 'src/network.cu', 'src/object.cu',
             'samples/mlp_learning_an_image.cu', 'benchmarks/image/bench_ours.cu', 'benchmarks/mlp/bench_mlp_ours.cu',
             'tests/test_encodings.cu', 'tests/test_grid.cu', 'tests/test_jit_losses.cu', 'tests/test_networks.cu']
    return [entry(d, f, flags) for f in files], [
        ('src/{encoding,loss,optimizer,reduce_sum}.cu', 'factories and explicit instantiations: their stream code '
                                                        'is in header templates, analysed where a main file calls it'),
        ('src/common_host.cu', 'no stream or copy call'),
        ('src/rtc_kernel.cu', 'NVRTC and driver-API module loading; needs CMake\'s generated resources'),
        ('stbi_wrapper.cpp, tinyexr.cpp', 'image I/O, no CUDA')]


PROJECTS = {'nccl-tests': nccl_tests, 'multi-gpu-programming-models': multi_gpu_programming_models,
            'CUDALibrarySamples': cuda_library_samples, 'nvbench': nvbench, 'faiss': faiss, 'llm.c': llm_c,
            'popsift': popsift, 'tiny-cuda-nn': tiny_cuda_nn}

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
