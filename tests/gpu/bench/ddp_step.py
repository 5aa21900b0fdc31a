"""Overhead benchmark: a DistributedDataParallel training step of a small
transformer (forward, backward with the gradient all-reduces overlapped,
optimizer), one process per GPU under torchrun. Rank 0 prints ms per step
(timing.py: median and fast); every rank steps in lockstep through the
all-reduces, so rank 0's time is the job's.

Usage: torchrun --standalone --nproc_per_node=N ddp_step.py [STEPS]"""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from timing import ms_per_call, report

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
torch.manual_seed(0)
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True),
        num_layers=4, enable_nested_tensor=False),
    torch.nn.Flatten(1), torch.nn.Linear(256 * 64, 10)).to(dev)
net = DistributedDataParallel(model, device_ids=[local], bucket_cap_mb=4)  # several buckets: overlap with backward
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
x = torch.randn(16, 64, 256, device=dev)
y = torch.randint(0, 10, (16,), device=dev)


def step():
    loss = torch.nn.functional.cross_entropy(net(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


# Every rank must step as often as the others (each step all-reduces):
# a warm-up of fixed length, not of a time each rank measures for itself.
# In turns with other jobs (turns.py) the ranks wait for their job's turn
# at a barrier on the CPU: in an NCCL barrier they would spin on the GPUs
# the other job is being timed on.
cpu_group = dist.new_group(backend="gloo") if os.environ.get("BENCH_TURN_WAIT") else None
timing = ms_per_call(step, steps, warmup=40, chunk=4, warmup_s=0,
                     sync=(lambda: dist.barrier(group=cpu_group)) if cpu_group is not None else None)
if dist.get_rank() == 0:
    report(f"ddp_step ranks={dist.get_world_size()}", "steps", steps, "step", timing)
dist.barrier()
dist.destroy_process_group()
