"""The canonical bug from PyTorch's CUDA semantics notes: normal_() fills A on
the default stream, then a side stream sums A without waiting for it. The fix
is s.wait_stream(torch.cuda.current_stream())."""
import sys

import torch

racy = sys.argv[1] == "racy"
s = torch.cuda.Stream()
A = torch.empty((2048, 2048), device="cuda").normal_()
if not racy:
    s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    B = torch.sum(A)
torch.cuda.synchronize()
print(float(B))
