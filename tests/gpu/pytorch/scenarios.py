"""PyTorch scenarios for `streamcheck run`, each with a racy and a fixed variant.

Usage: scenarios.py NAME racy|fixed   (expectations.txt beside this file says
what each must report). The event-handler cases of PyTorch's own CUDA
sanitizer suite are rebuilt here as real GPU programs (their synthetic stream
and tensor ids become streams and tensors); the rest cover what that
sanitizer cannot see: views, caching-allocator reuse, CUDA graphs, pinned
non_blocking copies. Every script ends with torch.cuda.synchronize(), as a
correct program does before its tensors are freed at exit.
"""
import sys

import torch

N = 1 << 20
SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def tensor(value=1.0):
    return torch.full((N,), value, device="cuda")


def streams(n):
    return [torch.cuda.Stream() for _ in range(n)]


def read(t, s):
    with torch.cuda.stream(s):
        return t.sum()


def write(t, s, value=2.0):
    with torch.cuda.stream(s):
        t.fill_(value)


def join(waiter, *others):
    for o in others:
        waiter.wait_stream(o)


def synced_streams(n):
    """n side streams, each ordered after the work issued so far."""
    ss = streams(n)
    for s in ss:
        join(s, torch.cuda.current_stream())
    return ss


def finish(*ss):
    """The current stream waits for the side streams (before tensors are freed)."""
    join(torch.cuda.current_stream(), *ss)


def written_on_first_of(n):
    """A tensor written on the first of n new streams, and an event recorded after the write."""
    t = torch.empty(N, device="cuda")
    ss = streams(n)
    join(ss[0], torch.cuda.current_stream())
    write(t, ss[0])
    return t, ss, recorded(ss[0])


def use_on_new_stream(racy, use):
    """use() on a new stream that waits for the current stream's work only in
    the fixed variant; the current stream waits for it afterwards."""
    s = torch.cuda.Stream()
    if not racy:
        join(s, torch.cuda.current_stream())
    with torch.cuda.stream(s):
        result = use()
    finish(s)
    return result


def recorded(s):
    """A new event recorded on s."""
    e = torch.cuda.Event()
    e.record(s)
    return e


@scenario
def normal_sum(racy):
    # The PyTorch docs' example: normal_() on the default stream, sum() on a side stream.
    s = torch.cuda.Stream()
    A = torch.empty((2048, 2048), device="cuda").normal_()
    if not racy:
        s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        B = torch.sum(A)
    torch.cuda.current_stream().wait_stream(s)
    return B


@scenario
def read_read(racy):
    # Two streams reading one tensor never race (both variants clean).
    t = tensor()
    s1, s2 = synced_streams(2)
    a, b = read(t, s1), read(t, s2)
    finish(s1, s2)
    return a, b


@scenario
def simple_error(racy):
    t = tensor()
    s1, s2 = synced_streams(2)
    r = read(t, s1)
    if not racy:
        s2.wait_event(recorded(s1))
    write(t, s2)
    finish(s1, s2)
    return r


@scenario
def reads_check_last_write(racy):
    t, (s1, s2, s3), e = written_on_first_of(3)
    s2.wait_event(e)
    a = read(t, s2)
    if not racy:
        s3.wait_event(e)
    b = read(t, s3)
    finish(s1, s2, s3)
    return a, b


@scenario
def branch_sync(racy):
    t, (s1, s2, s3), e = written_on_first_of(3)
    s2.wait_event(e)
    s3.wait_event(e)
    a, b = read(t, s2), read(t, s3)
    if not racy:
        s2.wait_stream(s3)
    write(t, s2, 3.0)
    finish(s2, s3)
    return a, b


@scenario
def chain_sync(racy):
    # A record/wait chain through ten streams orders the first read before
    # the last write; the racy variant breaks one link.
    t = tensor()
    ss = streams(11)
    join(ss[0], torch.cuda.current_stream())
    r = read(t, ss[0])
    for i in range(10):
        e = recorded(ss[i])
        if not (racy and i == 5):
            ss[i + 1].wait_event(e)
    write(t, ss[10])
    finish(*ss)
    return r


@scenario
def expired_record(racy):
    # The event captures only the first read; a wait on it does not order the second.
    t = tensor()
    s1, s2 = synced_streams(2)
    a = read(t, s1)
    e = recorded(s1)
    b = read(t, s1)
    if not racy:
        e.record(s1)
    s2.wait_event(e)
    write(t, s2)
    finish(s1, s2)
    return a, b


@scenario
def deleted_record(racy):
    # Waiting on a new event that was never recorded orders nothing.
    t = tensor()
    s1, s2 = synced_streams(2)
    r = read(t, s1)
    e = recorded(s1)
    if racy:
        del e
        e = torch.cuda.Event()
    s2.wait_event(e)
    write(t, s2)
    finish(s1, s2)
    return r


@scenario
def all_reads_checked(racy):
    t = tensor()
    ss = streams(11)
    for s in ss:
        join(s, torch.cuda.current_stream())
    reads = [read(t, s) for s in ss[1:10]]
    events = [recorded(s) for s in ss[1:10]]
    reads.append(read(t, ss[10]))  # a tenth reader
    if not racy:
        events.append(recorded(ss[10]))
    for e in events:
        ss[0].wait_event(e)
    write(t, ss[0])
    finish(*ss)
    return reads


@scenario
def multiple_errors(racy):
    ts = [torch.empty(N, device="cuda") for _ in range(10)]
    s0, s1 = synced_streams(2)
    for t in ts:
        write(t, s0)
    if not racy:
        s1.wait_stream(s0)
    for t in ts:
        write(t, s1, 3.0)
    finish(s0, s1)


@scenario
def correct_state_merging(racy):
    t1, t2 = torch.empty(N, device="cuda"), torch.empty(N, device="cuda")
    s1, s2 = synced_streams(2)
    write(t1, s1)
    write(t2, s2)
    e1, e2 = torch.cuda.Event(), torch.cuda.Event()
    e1.record(s1)
    e2.record(s2)
    s2.wait_event(e1)
    if not racy:
        s1.wait_event(e2)
    write(t1, s1, 3.0)
    write(t2, s1, 3.0)
    finish(s1, s2)


@scenario
def record_override(racy):
    # Re-recording an event replaces what it captured.
    t1, t2 = tensor(), tensor()
    s1, s2, s3 = streams(3)
    for s in (s1, s2, s3):
        join(s, torch.cuda.current_stream())
    a, b = read(t1, s1), read(t2, s2)
    e = recorded(s1)
    if racy:
        e.record(s2)
    s3.wait_event(e)
    write(t1, s3)
    finish(s1, s2, s3)
    return a, b


@scenario
def multiple_wait(racy):
    t, (s1, s2, s3), e = written_on_first_of(3)
    s2.wait_event(e)
    if not racy:
        s3.wait_event(e)
    a, b = read(t, s2), read(t, s3)
    finish(s1, s2, s3)
    return a, b


@scenario
def device_synchronize(racy):
    ts = [torch.empty(N, device="cuda") for _ in range(9)]
    ss = streams(10)
    for s in ss:
        join(s, torch.cuda.current_stream())
    for t, s in zip(ts, ss[1:]):
        write(t, s)
    if not racy:
        torch.cuda.synchronize()
    for t in ts:
        write(t, ss[0], 3.0)
    finish(*ss)


@scenario
def device_synchronization_expired(racy):
    t = torch.empty(N, device="cuda")
    s1, s2 = streams(2)
    join(s1, torch.cuda.current_stream())
    write(t, s1)
    torch.cuda.synchronize()
    if racy:
        write(t, s1, 3.0)  # after the sync: not covered by it
    write(t, s2, 4.0)
    finish(s1, s2)


@scenario
def new_stream_is_synchronized(racy):
    t = torch.empty(N, device="cuda")
    (s1,) = streams(1)
    join(s1, torch.cuda.current_stream())
    write(t, s1)
    if not racy:
        torch.cuda.synchronize()
    (s2,) = streams(1)
    write(t, s2, 3.0)
    finish(s1, s2)


@scenario
def stream_synchronize(racy):
    t1, t2 = torch.empty(N, device="cuda"), torch.empty(N, device="cuda")
    s0, s1, s2, s3 = streams(4)
    for s in (s0, s1):
        join(s, torch.cuda.current_stream())
    write(t1, s0)
    write(t2, s1)
    s0.synchronize()
    if not racy:
        s1.synchronize()
    a, b = read(t1, s2), read(t2, s3)
    finish(s0, s1, s2, s3)
    return a, b


@scenario
def event_synchronize(racy):
    t1, t2 = torch.empty(N, device="cuda"), torch.empty(N, device="cuda")
    s1, s2 = streams(2)
    join(s1, torch.cuda.current_stream())
    write(t1, s1)
    e = recorded(s1)
    write(t2, s1)
    if not racy:
        e.record(s1)
    e.synchronize()
    write(t1, s2, 3.0)
    write(t2, s2, 3.0)
    finish(s1, s2)


@scenario
def views(racy):
    # Halves of one tensor written on two streams are disjoint; the racy
    # variant's slices overlap in 1/8 of the tensor.
    t = torch.empty(N, device="cuda")
    s1, s2 = synced_streams(2)
    cut = N // 2
    write(t[: cut + (N // 8 if racy else 0)], s1)
    write(t[cut:], s2, 3.0)
    finish(s1, s2)


@scenario
def strided_views(racy):
    # Rows of a matrix on one stream, another row block on the other: exact
    # byte ranges of 2-D views (sizes, strides, storage offset).
    m = torch.empty((1024, 256), device="cuda")
    s1, s2 = synced_streams(2)
    write(m[0:512], s1)
    write(m[(500 if racy else 512):1024], s2, 3.0)
    finish(s1, s2)


@scenario
def record_stream(racy):
    # A tensor of the default stream read on a side stream, then freed: without
    # record_stream the allocator may hand its block to the next tensor while
    # the side stream still reads it.
    side = torch.cuda.Stream()
    x = tensor()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    if not racy:
        x.record_stream(side)
    del x
    z = torch.empty(N, device="cuda").fill_(3.0)  # may reuse x's block
    torch.cuda.current_stream().wait_stream(side)
    return y, z


@scenario
def non_blocking_copy(racy):
    # A pinned host tensor copied with non_blocking=True on the default
    # stream, then used on a side stream.
    host = torch.ones(N).pin_memory()
    dev = host.to("cuda", non_blocking=True)
    return use_on_new_stream(racy, dev.sum)


@scenario
def cuda_graph(racy):
    # The documented pattern (warm up on a side stream, capture, copy new
    # input into the static tensor, replay) is clean; reading the replay's
    # output on another stream without waiting is not.
    static_input = torch.randn(N, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            static_output = static_input * 2
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_output = static_input * 2
    static_input.copy_(torch.randn(N, device="cuda"))
    g.replay()
    return use_on_new_stream(racy, static_output.sum)


@scenario
def backward_grad(racy):
    # The backward pass runs on autograd's device thread, which has no Python
    # frames: its kernels carry the stack of the forward op they differentiate
    # (the line with x @ w). Scaling the gradient on another stream without
    # waiting for the backward pass races with the kernel that wrote it.
    w = torch.randn(512, 512, device="cuda", requires_grad=True)
    x = torch.randn(512, 512, device="cuda")
    loss = (x @ w).sum()
    loss.backward()
    use_on_new_stream(racy, lambda: w.grad.mul_(0.5))
    return w


@scenario
def optimizer_step(racy):
    # A training step as the DDP benchmark's model takes it: transposes and
    # permutes in the forward pass (pure views, which the plugin lets fall
    # through its observer) and in the backward one, and AdamW's foreach step,
    # which reads each parameter's step count on the CPU (aten::item on a CPU
    # tensor: no CUDA work, passed over). Reading the updated weight on another
    # stream without waiting for the step races with the foreach kernel that
    # wrote it; both sides still name their op and the script's line.
    layer = torch.nn.Linear(256, 256, device="cuda")
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-3, foreach=True)
    x = torch.randn(8, 64, 256, device="cuda")
    layer(x.transpose(0, 1)).permute(1, 0, 2).unsqueeze(0).squeeze(0).sum().backward()
    opt.step()
    use_on_new_stream(racy, lambda: layer.weight.sum())
    return layer


@scenario
def worker_thread(racy):
    # A Python thread of the program's own: its ops are observed like the main
    # thread's (names, exact bytes, that thread's Python stack) from its first
    # CUDA call on, here the making of its stream. Without the wait, its sum on
    # its own stream reads what the main thread's fill_ wrote on the default one.
    import threading

    a = tensor()
    main = torch.cuda.current_stream()
    write(a, main)
    results = []

    def work():
        s = torch.cuda.Stream()
        if not racy:
            s.wait_stream(main)
        results.append(read(a, s))
        main.wait_stream(s)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    return a, results


@scenario
def thread_synchronize(racy):
    # A Python thread fills a tensor on its own stream and, in the fixed
    # variant, synchronizes that stream before it ends; the main thread reads
    # the tensor after join(). A synchronize orders only its own thread: the
    # main thread learns of it through what hands the worker's knowledge over
    # (the thread's end, Python's locks, the GIL), which streamcheck observes.
    # So does the worker of the main thread's synchronize before start().
    import threading

    a = tensor()
    torch.cuda.synchronize()

    def work():
        s = torch.cuda.Stream()
        write(a, s)
        if not racy:
            s.synchronize()

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    return a, read(a, torch.cuda.current_stream())


# Host accesses of pinned memory (tracer/host/: guard pages). Small tensors
# (one page or so): the CPU ops touching them then run on the calling thread,
# whose Python line the finding names. A long kernel first keeps the copy
# pending. The racy reads print nothing they read (it depends on timing): the
# GPU runner compares each script's output with and without the tracer.
SMALL = 1024


def busy_then(make):
    """A few hundred milliseconds of matmuls on the current stream, then make()."""
    a = torch.randn(4096, 4096, device="cuda")
    for _ in range(8):
        a = a @ a
        a = a / a.norm()
    return make(), a


def copied_to_host():
    """A device tensor copied to pinned host memory with non_blocking=True:
    the copy is queued on the current stream and may not have run yet."""
    x, _ = busy_then(lambda: torch.arange(SMALL, device="cuda", dtype=torch.float32) * 2)
    return x.to("cpu", non_blocking=True)


def wait_unless(racy):
    if not racy:
        torch.cuda.current_stream().synchronize()


@scenario
def d2h_print(racy):
    # The canonical one: print(y[0]) right after y = x.to("cpu", non_blocking=True).
    import io

    y = copied_to_host()
    wait_unless(racy)
    print(y[0], file=io.StringIO())
    return y


@scenario
def d2h_numpy(racy):
    # The host reads the copy's destination through numpy, outside any aten
    # op; Python's faulthandler is on (its SIGSEGV handler comes after ours).
    import faulthandler

    faulthandler.enable()
    y = copied_to_host()
    wait_unless(racy)
    array = y.numpy()
    total = float(array.sum())
    return y, total


@scenario
def d2h_tolist(racy):
    y = copied_to_host()
    wait_unless(racy)
    values = y.tolist()
    return y, len(values)


@scenario
def h2d_overwrite_source(racy):
    # The pinned source of a non_blocking copy to the device is overwritten
    # before the copy ran.
    src = torch.ones(SMALL).pin_memory()
    dev, _ = busy_then(lambda: src.to("cuda", non_blocking=True))
    wait_unless(racy)
    src.fill_(0.0)
    return dev


@scenario
def pinned_reuse(racy):
    # A staging loop. Racy: one pinned buffer refilled each step while the
    # previous step's copy from it may still be pending. Fixed: a fresh pinned
    # tensor each step from PyTorch's pinned caching allocator, which hands a
    # block out again only once the events recorded for its copies completed.
    total = torch.zeros(SMALL, device="cuda")
    staging = torch.empty(SMALL, pin_memory=True)
    for step in range(20):
        if not racy:
            staging = torch.empty(SMALL, pin_memory=True)
        staging.fill_(float(step))
        total += staging.to("cuda", non_blocking=True)
    return total


@scenario
def pinned_dataloader(racy):
    # A training loop over DataLoader(pin_memory=True) with worker processes:
    # batches arrive pinned (the pin thread copies them into pinned blocks),
    # go to the device with non_blocking=True, and their blocks are reused.
    # Clean as written; the racy variant scales each pinned batch on the host
    # right after its copy was queued.
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(2048, 64), torch.randn(2048, 1))
    loader = DataLoader(data, batch_size=128, shuffle=True, pin_memory=True, num_workers=2)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(2):
        for xb, yb in loader:
            x = xb.to("cuda", non_blocking=True)
            y = yb.to("cuda", non_blocking=True)
            if racy:
                xb.mul_(2.0)
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


# Handovers between frameworks (issue 45): DLPack and __cuda_array_interface__
# carry a stream so that the consumer can be ordered after the producer's
# work. DLPack: the consumer passes its current stream to __dlpack__(stream=),
# and the producer makes that stream wait for the producer's *current* stream,
# not for the stream the buffer was written on. CAI as PyTorch exports it
# (version 2) carries no stream at all: the consumer must synchronize.


@scenario
def dlpack_torch_to_cupy(racy):
    # Written by PyTorch on a side stream, read by CuPy on a stream of its own.
    # Handed over with PyTorch's default stream current, CuPy's stream waits
    # for the default stream only: its sum reads what normal_ may be writing.
    import cupy

    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.empty(N, device="cuda").normal_()
    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        if racy:
            b = cupy.from_dlpack(a)
        else:
            with torch.cuda.stream(side):  # the producing stream current: CuPy's waits for it
                b = cupy.from_dlpack(a)
        total = b.sum()
    cs.synchronize()
    return a, b, total


@scenario
def dlpack_cupy_to_torch(racy):
    # Written by CuPy on a non-blocking stream, read by PyTorch on its default
    # stream. Handed over outside that stream's context, CuPy's current stream
    # is the default one: PyTorch's stream is ordered after nothing CuPy did.
    import cupy

    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        x = cupy.arange(N, dtype=cupy.float32) * 2
        if not racy:
            t = torch.from_dlpack(x)  # CuPy makes PyTorch's stream wait for cs
    if racy:
        t = torch.from_dlpack(x)
    total = t.sum()
    cs.synchronize()
    return x, t, total


@scenario
def cai_torch_to_cupy(racy):
    # __cuda_array_interface__ from PyTorch has no stream: CuPy assumes the
    # data is ready. Written on a side stream and not synchronized, it is not.
    import cupy

    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.empty(N, device="cuda").normal_()
    if not racy:
        side.synchronize()
    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        b = cupy.asarray(a)
        total = b.sum()
    cs.synchronize()
    return a, b, total


if __name__ == "__main__":
    name, variant = sys.argv[1], sys.argv[2]
    keep = SCENARIOS[name](variant == "racy")
    torch.cuda.synchronize()
    print(f"{name} {variant} done")
