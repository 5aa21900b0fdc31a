"""Distributed PyTorch scenarios for `streamcheck run`, each with a racy and
a fixed variant, one process per GPU.

Usage: torchrun --standalone --nproc_per_node=N scenarios.py NAME racy|fixed
(expectations.txt beside this file says what each must report, and with
how many ranks it runs). Every scenario ends with torch.cuda.synchronize()
and destroys its process group, as a correct program does.
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F

N = 1 << 20
SCENARIOS = {}
# GPU cycles (some 50 ms) the current stream spins before a collective, which
# waits for it: the collective is still running when the program goes on,
# so the race is one in time too, and no completion the program (or
# PyTorch's watchdog thread, querying the work's events) observes comes
# between them.
BUSY_CYCLES = 100_000_000


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def setup():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    return dist.get_rank(), dist.get_world_size()


@scenario
def allreduce_async(racy):
    """dist.all_reduce(x, async_op=True), then x.mul_(2): before work.wait()
    the all-reduce (on NCCL's stream) may still be writing x."""
    rank, _ = setup()
    x = torch.full((N,), float(rank + 1), device="cuda")
    torch.cuda._sleep(BUSY_CYCLES)
    work = dist.all_reduce(x, async_op=True)
    if racy:
        x.mul_(2)
        work.wait()
    else:
        work.wait()
        x.mul_(2)
    torch.cuda.synchronize()


@scenario
def isend_overwrite(racy):
    """Even ranks send a tensor to the next rank with dist.isend and
    overwrite it: before req.wait() the send may still be reading it."""
    rank, world = setup()
    if world < 2:
        sys.exit("isend_overwrite needs two ranks")
    peer = rank + 1 if rank % 2 == 0 else rank - 1
    if peer >= world:  # an odd rank count leaves the last rank out
        torch.cuda.synchronize()
        return
    t = torch.full((N,), float(rank), device="cuda")
    if rank % 2 == 0:
        torch.cuda._sleep(BUSY_CYCLES)
        req = dist.isend(t, dst=peer)
        if racy:
            t.fill_(7.0)
            req.wait()
        else:
            req.wait()
            t.fill_(7.0)
    else:
        dist.irecv(t, src=peer).wait()
        t.add_(1.0)
    torch.cuda.synchronize()


def side_stream_read(racy, tensors):
    """Reads `tensors` on a new stream: ordered after the current stream's
    work in the fixed variant only. The current stream waits for the read
    afterwards, so the tensors outlive it in stream order."""
    side = torch.cuda.Stream()
    if not racy:
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        total = sum(t.float().norm() for t in tensors)
    torch.cuda.current_stream().wait_stream(side)
    return total


@scenario
def ddp(racy):
    """DistributedDataParallel with small buckets, so gradient all-reduces
    overlap the rest of backward (no finding in DDP's own work). The racy
    variant reads the gradients on a side stream that does not wait for
    backward (and its all-reduces) to finish."""
    from torch.nn.parallel import DistributedDataParallel

    rank, _ = setup()
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 10)).cuda()
    net = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()], bucket_cap_mb=1,
                                  gradient_as_bucket_view=True)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for step in range(3):
        x = torch.randn(64, 256, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        opt.zero_grad(set_to_none=False)
        loss = F.cross_entropy(net(x), y)
        if step == 2:
            torch.cuda._sleep(BUSY_CYCLES)  # backward, and the all-reduces waiting for it, still run below
        loss.backward()
        if step == 2:
            side_stream_read(racy, [p.grad for p in model.parameters()])
        opt.step()
    torch.cuda.synchronize()


@scenario
def fsdp2(racy):
    """FSDP2 (fully_shard) on a small transformer: its all-gathers and
    reduce-scatters on streams of its own (no finding in FSDP's own work).
    The racy variant reads the forward's output on a side stream that does
    not wait for it."""
    from torch.distributed.fsdp import fully_shard

    setup()
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).cuda()
    for block in model.layers:
        fully_shard(block)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(2):
        x = torch.randn(8, 32, 128, device="cuda")
        if step == 1:
            torch.cuda._sleep(BUSY_CYCLES)  # the forward below still runs when the side stream reads
        out = model(x)
        if step == 1:
            side_stream_read(racy, [out])
        out.pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
    torch.cuda.synchronize()


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in SCENARIOS or sys.argv[2] not in ("racy", "fixed"):
        sys.exit("usage: scenarios.py {%s} racy|fixed" % "|".join(SCENARIOS))
    SCENARIOS[sys.argv[1]](sys.argv[2] == "racy")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
