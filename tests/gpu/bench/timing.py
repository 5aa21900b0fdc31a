"""How the PyTorch overhead benchmarks time a step: warm up, then the mean
host time of `count` calls between two device synchronizations, so queued
GPU work is inside the measurement."""
import time

import torch


def ms_per_call(step, count, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(count):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / count
