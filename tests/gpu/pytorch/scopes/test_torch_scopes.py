"""PyTorch under the pytest plugin: two racy and three clean tests, one race
across two tests (run_scope_tests.sh). No test checks the values a race may
spoil: natively every test passes; under `streamcheck run --streamcheck-fail`
exactly the racy ones fail."""
import torch

N = 1 << 20
LEFT_IN_FLIGHT = {}


def test_side_stream_reads_before_producer():  # racy: the docs' canonical example
    side = torch.cuda.Stream()
    a = torch.empty(N, device="cuda").normal_()
    with torch.cuda.stream(side):
        total = a.sum()  # may run before normal_() finished
    torch.cuda.current_stream().wait_stream(side)
    total.item()
    torch.cuda.synchronize()


def test_side_stream_waits():  # clean
    side = torch.cuda.Stream()
    a = torch.empty(N, device="cuda").normal_()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        total = a.sum()
    torch.cuda.current_stream().wait_stream(side)
    total.item()


def test_leaves_copy_in_flight():  # clean itself: the next test reads what this one left in flight
    side = torch.cuda.Stream()
    host = torch.ones(N).pin_memory()
    staging = torch.empty(N, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        staging.copy_(host, non_blocking=True)
    LEFT_IN_FLIGHT.update(side=side, host=host, staging=staging)


def test_reuses_buffer_in_flight():  # racy: reads the buffer the copy of the test before may still write
    doubled = LEFT_IN_FLIGHT["staging"] * 2  # the default stream never waited for the side stream
    torch.cuda.synchronize()
    doubled.sum().item()
    LEFT_IN_FLIGHT.clear()


def test_pinned_copy_synchronized():  # clean
    host = torch.ones(N).pin_memory()
    device = host.to("cuda", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    device.sum().item()
