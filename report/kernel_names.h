// Kernel and function names as a person reads them. A demangled C++ kernel
// name is its return type, every enclosing namespace, every template argument
// (PyTorch's carry whole lambda chains) and the parameter list: hundreds of
// characters for `reduce_kernel`. Reports print the short name; the full one
// stays in JSON and one click (HTML) or --verbose (text) away.
#pragma once

#include <string>
#include <string_view>

namespace streamcheck::report {

// The name a person calls the kernel (or function, or API) by:
//   "void at::native::reduce_kernel<512, 1, ...>(at::native::ReduceOp<...>)"
//       -> "reduce_kernel"
//   "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<...>(...)"
//       -> "distribution_elementwise_grid_stride_kernel"
//   "Functor::operator()(int) const" -> "Functor::operator()"
//   "run()::{lambda(int)#2}"         -> "lambda #2 in run"
//   "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_tn>(...)"
//       -> "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_tn>" (generic wrappers keep what they wrap)
//   "triton_poi_fused_add_0", "cudaMemcpyAsync" (extern "C" names, APIs) -> unchanged
//   "_Z5scalePKfPfi" (mangled) -> demangled first, then "scale"
// Text that does not parse as a C++ name comes back unchanged.
std::string ShortFunctionName(std::string_view name);

}  // namespace streamcheck::report
