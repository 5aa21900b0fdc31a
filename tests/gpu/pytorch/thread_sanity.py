"""A correct multi-threaded PyTorch program whose output must be the same with
and without `streamcheck run`, with no finding: Python threads that compute on
streams of their own and hand results over through a queue (after
synchronizing their stream), a main thread that waits for them, and a
DataLoader whose worker processes and pin-memory thread feed non_blocking
copies. Values are sums of integers, exact in float64, so the output is
deterministic.

Usage: thread_sanity.py
"""
import queue
import threading

import torch
from torch.utils.data import DataLoader, TensorDataset

N = 1 << 16


def worker(index, out):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.arange(N, device="cuda", dtype=torch.float64) * (index + 1)
        y = (x * 2).sum()
    s.synchronize()  # the value is complete before it is handed over
    out.put((index, y))


def threads():
    out = queue.Queue()
    workers = [threading.Thread(target=worker, args=(i, out)) for i in range(4)]
    for w in workers:
        w.start()
    results = sorted((i, y.item()) for i, y in (out.get() for _ in workers))
    for w in workers:
        w.join()
    return results


def loader():
    data = TensorDataset(torch.arange(4096, dtype=torch.float64).reshape(256, 16))
    total = torch.zeros((), device="cuda", dtype=torch.float64)
    for (batch,) in DataLoader(data, batch_size=32, num_workers=2, pin_memory=True):
        total += batch.to("cuda", non_blocking=True).sum()
    torch.cuda.synchronize()
    return total.item()


if __name__ == "__main__":
    print("threads", threads())
    print("loader", loader())
    torch.cuda.synchronize()
