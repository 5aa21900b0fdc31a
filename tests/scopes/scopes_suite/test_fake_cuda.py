# 3 racy and 4 clean tests, one race across two tests: what the plugin must
# fail under --streamcheck-fail, exactly (tests/python/test_pytest_plugin.py).
from conftest import LEGACY, S1, S2

shared = {}


def test_side_stream_reads_before_producer(cuda):  # racy
    a = cuda.buffer()
    cuda.launch(LEGACY, "normal_kernel", a, write=True)
    cuda.launch(S1, "sum_kernel", a, write=False)  # S1 is non-blocking: not after the default stream
    cuda.synchronize()


def test_side_stream_waits(cuda):  # clean
    b = cuda.buffer()
    cuda.launch(LEGACY, "normal_kernel", b, write=True)
    cuda.wait_stream(S1, LEGACY)
    cuda.launch(S1, "sum_kernel", b, write=False)
    cuda.synchronize()


def test_leaves_copy_in_flight(cuda):  # clean itself: the race comes in the next test
    shared["staging"] = cuda.buffer()
    cuda.launch(S2, "fill_kernel", shared["staging"], write=True)


def test_reuses_buffer_in_flight(cuda):  # racy: its read meets the previous test's write
    cuda.launch(LEGACY, "scale_kernel", shared.pop("staging"), write=False)
    cuda.synchronize()


def test_two_side_streams(cuda):  # racy
    c = cuda.buffer()
    cuda.launch(S1, "produce_kernel", c, write=True)
    cuda.launch(S2, "consume_kernel", c, write=False)
    cuda.synchronize()


def test_two_side_streams_ordered(cuda):  # clean
    d = cuda.buffer()
    cuda.launch(S1, "produce_kernel", d, write=True)
    cuda.wait_stream(S2, S1)
    cuda.launch(S2, "consume_kernel", d, write=False)
    cuda.synchronize()


def test_host_only():  # clean, no CUDA at all
    assert sum(range(4)) == 6
