"""Options of the Python tests in tests/install/ (CTest passes them)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--builder", help="tracer/frameworks/pytorch/build_torch_plugin.py")
    parser.addoption("--streamcheck", help="the streamcheck binary")
    parser.addoption("--source-dir", help="the source tree")


@pytest.fixture
def builder(request):
    return request.config.getoption("--builder")


@pytest.fixture
def streamcheck(request):
    return request.config.getoption("--streamcheck")


@pytest.fixture
def source_dir(request):
    return request.config.getoption("--source-dir")
