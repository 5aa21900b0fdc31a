# torch.compile(mode="reduce-overhead"): CUDA graph trees for a small training loop, then
# inference in a second tree of the same pool. Its trace is testdata/traces/pytorch_reduce_overhead.sctrace.
import torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8)).cuda()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
train = torch.compile(m, mode="reduce-overhead")
x = torch.randn(16, 64, device="cuda"); y = torch.randint(0, 8, (16,), device="cuda")
for i in range(4):
    loss = torch.nn.functional.cross_entropy(train(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
with torch.no_grad():
    infer = torch.compile(m, mode="reduce-overhead")
    for i in range(3):
        out = infer(x).clone()
torch.cuda.synchronize()
print(f"reduce_overhead_loop loss {loss.item():.4f} out {out.sum().item():.3f}")
