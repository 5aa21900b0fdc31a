"""mpi4py over GPU arrays (CuPy, else PyTorch), two ranks: rank 0 sends, rank 1 receives.

Usage: mpirun -np 2 python3 mpi4py_scenarios.py SCENARIO MEMORY racy|fixed
  SCENARIO: send_after_kernel  rank 0 sends an array a kernel still writes (fixed: synchronize first)
            irecv_then_kernel  rank 1 computes on its Irecv array before Wait (fixed: Wait first)
  MEMORY: device (needs a CUDA-aware MPI) or managed (CuPy only: any MPI reads it from the host).
mpi4py hands the array's pointer to MPI (__cuda_array_interface__ or DLPack) and does not
synchronize its stream: the program must.
"""
import sys

from mpi4py import MPI

N = 1 << 16


def library(memory):
    try:
        import cupy
        if memory == "managed":
            cupy.cuda.set_allocator(cupy.cuda.MemoryPool(cupy.cuda.malloc_managed).malloc)
        return "cupy", cupy
    except ImportError:
        if memory == "managed":
            sys.exit("managed memory needs CuPy")
        import torch
        return "torch", torch


def main():
    scenario, memory, variant = sys.argv[1:4]
    racy = variant == "racy"
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    name, xp = library(memory)
    if name == "cupy":
        xp.cuda.Device(rank % xp.cuda.runtime.getDeviceCount()).use()
        spin = xp.RawKernel(r'''
        extern "C" __global__ void spin_then_fill(float* out, long long ns, int n) {
          long long start = clock64();
          while (clock64() - start < ns) {}
          for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 1;
        }''', "spin_then_fill")
        zeros = lambda: xp.zeros(N, dtype=xp.float32)
        fill = lambda a: spin((64,), (256,), (a, xp.int64(20000000), xp.int32(N)))
        sync = lambda: xp.cuda.get_current_stream().synchronize()
    else:
        xp.cuda.set_device(rank % xp.cuda.device_count())
        zeros = lambda: xp.zeros(N, dtype=xp.float32, device="cuda")
        fill = lambda a: a.copy_(xp.ones(N, device="cuda").cumsum(0).sin().cos())
        sync = xp.cuda.synchronize
    buf = zeros()
    sync()
    if scenario == "send_after_kernel":
        if rank == 0:
            fill(buf)
            if not racy:
                sync()
            comm.Send(buf, dest=1)
        else:
            comm.Recv(buf, source=0)
    elif scenario == "irecv_then_kernel":
        if rank == 0:
            comm.Send(buf, dest=1)
        else:
            request = comm.Irecv(buf, source=0)
            if not racy:
                request.Wait()
            doubled = buf * 2
            if racy:
                request.Wait()
            sync()
            del doubled
    else:
        sys.exit("unknown scenario " + scenario)
    sync()
    comm.Barrier()


if __name__ == "__main__":
    main()
