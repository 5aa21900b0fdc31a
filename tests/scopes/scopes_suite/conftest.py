# The suite the pytest plugin's tests run (tests/python/test_pytest_plugin.py):
# CUDA work made up by fake_traced_process.cpp, which ctypes loads from
# FAKE_TRACED_PROCESS into this process, where the tracer observes it as it
# would a GPU's (tests/gpu/pytorch/scopes/ is the same suite on a GPU).
import ctypes
import os

import pytest

S1, S2 = 0x10, 0x20  # non-blocking streams
LEGACY = 0


class FakeCuda:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.fake_launch.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64,
                                         ctypes.c_int]
        for name in ("fake_stream_create", "fake_wait_stream", "fake_malloc"):
            getattr(self.lib, name).argtypes = [ctypes.c_uint64] * (1 if name == "fake_stream_create" else 2)
        self.lib.fake_cuda_init()
        self.next_address = 0x7F0000000000

    def stream(self, handle):
        self.lib.fake_stream_create(handle)
        return handle

    def buffer(self, size=4096):
        address = self.next_address
        self.next_address += 0x100000
        self.lib.fake_malloc(address, size)
        return address

    def launch(self, stream, kernel, address, write, size=4096):
        self.lib.fake_launch(stream, kernel.encode(), address, size, 1 if write else 0)

    def wait_stream(self, waiter, stream):
        self.lib.fake_wait_stream(waiter, stream)

    def synchronize(self):
        self.lib.fake_synchronize()


@pytest.fixture(scope="session")
def cuda():
    # Initialized inside the first test's setup, as CUDA is by a framework:
    # the tracer comes while that scope is open.
    fake = FakeCuda(os.environ["FAKE_TRACED_PROCESS"])
    fake.stream(S1)
    fake.stream(S2)
    return fake
