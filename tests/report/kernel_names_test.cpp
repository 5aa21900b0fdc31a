// Short kernel names: what a person calls a kernel, from the names CUPTI
// reports (demangled C++ with return type, namespaces, template arguments and
// parameter lists; extern "C" names; mangled names).
#include <gtest/gtest.h>

#include "report/kernel_names.h"

namespace streamcheck::report {
namespace {

TEST(ShortFunctionName, PyTorchKernelsAsRecordedOnAnH100) {
  // Verbatim from testdata/traces/pytorch_normal_sum.racy.sctrace (shortened
  // in the middle, balanced as the demangler writes them).
  EXPECT_EQ(ShortFunctionName(
                "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
                "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
                "float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
                "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
                "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)"),
            "reduce_kernel");
  EXPECT_EQ(ShortFunctionName(
                "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
                "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*, "
                "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, "
                "double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
                "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
                "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, "
                "double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
                "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}>(long, at::PhiloxCudaState, "
                "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, "
                "double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
                "const::{lambda(float)#1})"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(ShortFunctionName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                              "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(ShortFunctionName("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
                              "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
                              "const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
                              "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()"
                              "() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>"
                              "(int, at::native::gpu_kernel_impl_nocast<...>::{lambda(int)#1})"),
            "elementwise_kernel");
}

TEST(ShortFunctionName, PlainCudaKernels) {
  EXPECT_EQ(ShortFunctionName("scale(float const*, float*, int)"), "scale");
  EXPECT_EQ(ShortFunctionName("void fill<float>(float*, float, int)"), "fill");
  EXPECT_EQ(ShortFunctionName("unsigned int ns::inner::count_kernel(int const*) [clone .kd]"), "count_kernel");
  EXPECT_EQ(ShortFunctionName("_Z5scalePKfPfi"), "scale") << "mangled names are demangled first";
  EXPECT_EQ(ShortFunctionName("  spin_then_fill(float*, long long, int)  "), "spin_then_fill");
}

TEST(ShortFunctionName, ExternCNamesAndApisStayAsTheyAre) {
  for (const char* name : {"triton_poi_fused_add_0", "triton_red_fused_sum_1", "cudaMemcpyAsync", "host read",
                           "caching allocator: allocate",
                           "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_"
                           "aligna4_alignc4_execute_kernel__5x_cublas",
                           "ampere_sgemm_128x64_nn", "<module>"})
    EXPECT_EQ(ShortFunctionName(name), name);
}

TEST(ShortFunctionName, OperatorsKeepTheirClass) {
  EXPECT_EQ(ShortFunctionName("Functor::operator()(int) const"), "Functor::operator()");
  EXPECT_EQ(ShortFunctionName("bool ns::Key::operator<(ns::Key const&) const"), "Key::operator<");
  EXPECT_EQ(ShortFunctionName("std::ostream& operator<<(std::ostream&, Foo const&)"), "operator<<");
  EXPECT_EQ(ShortFunctionName("void* operator new(unsigned long)"), "operator new");
  EXPECT_EQ(ShortFunctionName("void ns::Vec<int>::operator()<float>(float)"), "Vec::operator()");
}

TEST(ShortFunctionName, LambdasNameWhereTheyLive) {
  EXPECT_EQ(ShortFunctionName("run(int)::{lambda(int)#2}"), "lambda #2 in run");
  EXPECT_EQ(ShortFunctionName("run(int)::{lambda(int)#2}::operator()(int) const"), "lambda #2 in run");
  EXPECT_EQ(ShortFunctionName("void (anonymous namespace)::helper(float*)"), "helper");
}

TEST(ShortFunctionName, GenericWrappersKeepWhatTheyWrap) {
  EXPECT_EQ(ShortFunctionName("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>"
                              "(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)"),
            "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>");
  EXPECT_EQ(ShortFunctionName("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, "
                              "int, int, int>, cutlass::gemm::collective::CollectiveMma<> > >("
                              "cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int> >::Params)"),
            "device_kernel<GemmUniversal>");
}

TEST(ShortFunctionName, TextThatDoesNotParseComesBackUnchanged) {
  for (const char* text : {"broken<name(", "a>b", "f(int))", ""}) EXPECT_EQ(ShortFunctionName(text), text);
}

}  // namespace
}  // namespace streamcheck::report
