"""Overhead benchmark (b): a PyTorch eager loop of small ops on two streams,
with the side stream waiting on the main one each iteration (correctly
synchronized, so a checker should report nothing). Prints ms per iteration
(timing.py: median and fast)."""
import sys

import torch
from timing import ms_per_call, report

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
dev = torch.device("cuda")
side = torch.cuda.Stream()
a = torch.randn(256, 256, device=dev)
b = torch.randn(256, 256, device=dev)


def step():
    global a
    c = torch.relu(a @ b) + 1.0
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        d = c.sum(dim=0) * 2.0
        e = torch.tanh(d)
    torch.cuda.current_stream().wait_stream(side)
    a = (a + e.unsqueeze(0) * 1e-3).contiguous()


report("torch_loop", "iters", iters, "iter", ms_per_call(step, iters, warmup=50))
