"""Overhead benchmark: a small transformer's training step (forward, backward,
optimizer), data loaded on a side stream with a proper wait. Prints ms per
step (timing.py: median and fast)."""
import sys

import torch
from timing import ms_per_call, report

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
torch.manual_seed(0)
dev = torch.device("cuda")
model = torch.nn.TransformerEncoder(
    torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True), num_layers=4
).to(dev)
head = torch.nn.Linear(256, 10).to(dev)
opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4)
loader = torch.cuda.Stream()
host_x = torch.randn(32, 128, 256).pin_memory()
host_y = torch.randint(0, 10, (32,)).pin_memory()


def step():
    with torch.cuda.stream(loader):
        x = host_x.to(dev, non_blocking=True)
        y = host_y.to(dev, non_blocking=True)
    torch.cuda.current_stream().wait_stream(loader)
    x.record_stream(torch.cuda.current_stream())
    y.record_stream(torch.cuda.current_stream())
    loss = torch.nn.functional.cross_entropy(head(model(x).mean(dim=1)), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


report("torch_transformer", "steps", steps, "step", ms_per_call(step, steps, warmup=5, chunk=2))
