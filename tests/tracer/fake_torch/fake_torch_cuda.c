// A stand-in for PyTorch's libtorch_cuda.so, for its name and its folder
// (torch/lib/): where the tracer learns which PyTorch a process has.
int streamcheck_fake_torch_cuda(void) { return 0; }
