"""Overhead benchmark (d): many small non_blocking copies of pinned tensors,
both ways, the host touching its pinned buffers between steps (correctly
synchronized, so a checker should report nothing). The host guards' worst
case: every copy guards its pinned pages (mprotect), every synchronization
opens them again, and each step's host reads and writes come right after.
Prints ms per step (timing.py: median and fast)."""
import sys

import torch
from timing import ms_per_call, report

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
COPIES, ELEMS = 8, 1024  # 4 KiB each: one page
dev = torch.device("cuda")
host_in = [torch.empty(ELEMS, pin_memory=True) for _ in range(COPIES)]
host_out = [torch.empty(ELEMS, pin_memory=True) for _ in range(COPIES)]
on_device = [torch.empty(ELEMS, device=dev) for _ in range(COPIES)]
sink = [0.0]


def step():
    for i in range(COPIES):
        host_in[i].fill_(float(i))  # the host writes its staging buffer
        on_device[i].copy_(host_in[i], non_blocking=True)
        on_device[i].mul_(2.0)
        host_out[i].copy_(on_device[i], non_blocking=True)
    torch.cuda.current_stream().synchronize()
    sink[0] += sum(float(h[0]) for h in host_out)  # and reads the results


report("torch_pinned_copies", "steps", steps, "step", ms_per_call(step, steps, warmup=50))
