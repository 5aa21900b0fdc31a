"""CuPy under the pytest plugin: one racy and one clean test (run_scope_tests.sh).

Device-to-device copies on two non-blocking streams: copies' bytes are exact,
so the race is certain (an error), where CuPy's kernels, which take their
arrays inside structs, would make only possible ones."""
import cupy

N = 1 << 20


def arrays():
    x = cupy.arange(N, dtype=cupy.float32)
    y = cupy.empty_like(x)
    z = cupy.empty_like(x)
    cupy.cuda.Device().synchronize()  # the arrays' making is done before the streams start
    return x, y, z


def test_cupy_copies_race():  # racy
    x, y, z = arrays()
    s1 = cupy.cuda.Stream(non_blocking=True)
    s2 = cupy.cuda.Stream(non_blocking=True)
    y.data.copy_from_device_async(x.data, x.nbytes, stream=s1)
    z.data.copy_from_device_async(y.data, y.nbytes, stream=s2)  # y may not be written yet
    cupy.cuda.Device().synchronize()


def test_cupy_copies_ordered():  # clean
    x, y, z = arrays()
    s1 = cupy.cuda.Stream(non_blocking=True)
    s2 = cupy.cuda.Stream(non_blocking=True)
    y.data.copy_from_device_async(x.data, x.nbytes, stream=s1)
    s2.wait_event(s1.record())
    z.data.copy_from_device_async(y.data, y.nbytes, stream=s2)
    cupy.cuda.Device().synchronize()
