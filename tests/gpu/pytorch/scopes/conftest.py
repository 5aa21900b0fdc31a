# The GPU suite of the pytest plugin (run_scope_tests.sh runs it): PyTorch is
# imported before any test so that its plugin for streamcheck attaches when
# the first test initializes CUDA (with CuPy, inside that test's scope).
import torch  # noqa: F401
