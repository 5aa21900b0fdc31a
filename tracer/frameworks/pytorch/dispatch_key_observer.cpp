// The dispatch-key observer: kernels on a dispatch key that the plugin
// includes in each thread's dispatch key set see every op the program calls
// and take the key out of the set for the op's duration, so the ops nested
// in it dispatch as they would without streamcheck. RecordFunction then has
// no FUNCTION-scope callback of ours, and PyTorch spends nothing per op on
// observing for us, which makes a training step cheaper than with the
// RecordFunction observer (tests/gpu/bench/results/README.md). A thread's ops reach it from the
// thread's first CUDA call the tracer records
// (streamcheck_framework_thread_started), or from the start on the thread
// that initialized CUDA and on autograd's threads, which take the caller's
// thread-local state.
//
// Three kinds of kernel on the key:
//   * a boxed fallback for every op: PyTorch boxes the op's arguments into
//     IValues for it and unboxes them again below, some 0.3 us an op;
//   * unboxed kernels for the ops a training step calls most (kUnboxedOps):
//     the same observation over the typed arguments, no boxing;
//   * fallthrough for pure views, which are not observed at all.
#include "tracer/frameworks/pytorch/dispatch_key_observer.h"

#include <ATen/Operators.h>
#include <ATen/SequenceNumber.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "tracer/frameworks/pytorch/observer_core.h"

namespace streamcheck::pytorch {

bool g_dispatch_observer = false;

namespace {

const c10::DispatchKeySet kBelowObserver(c10::DispatchKeySet::FULL_AFTER, kObserverKey);

// Ends an observed op however it left (an exception too).
struct DispatchedOpEnd {
  uint64_t first_sequence_nr;
  ~DispatchedOpEnd() {
    NoteNodesMadeSince(first_sequence_nr);
    EndOp();
  }
};

// An op with no CUDA tensor among its arguments and no device to make one
// on does no CUDA work inside (AdamW's aten::item on each parameter's step
// count, a CPU tensor: a hundred calls a step of the DDP benchmark's model),
// and unless one of its tensors may lie in guarded host memory (pinned: a
// CPU op filling a pinned staging tensor is a host access that findings name
// after the op) no record ever takes its name or stack: it is not observed,
// and neither are its nested ops (a CUDA tensor they made would need a device).
bool NeedsNoScope(const OpInfo& info, c10::DispatchKeySet keys, TensorSource tensors) {
  if (info.takes_device || keys.has_backend(c10::BackendComponent::CUDABit)) return false;
  bool host_guarded = false;
  tensors([&](const at::Tensor& t, size_t) {
    StreamcheckTensorRegion r;
    host_guarded = host_guarded || (BytesOf(t, &r) && g_hooks->may_guard_host(r.begin, r.end) != 0);
  });
  return !host_guarded;
}

// One op at the observer's key, boxed or not: its nested ops go by unseen,
// and unless it needs no scope it is observed around `redispatch`, which
// runs it below the key.
template <typename Redispatch>
decltype(auto) ObserveDispatchedOp(const c10::FunctionSchema& schema, c10::DispatchKeySet keys, TensorSource tensors,
                                   Redispatch&& redispatch) {
  std::optional<c10::impl::ExcludeDispatchKeyGuard> nested;
  if (!g_observe_nested_ops) nested.emplace(kObserverKey);
  if (g_observer_floor) return redispatch(keys & kBelowObserver);
  const uint64_t start = g_profile.Now();
  AttachAllocatorTracker();
  const OpInfo& info = InfoOf(schema);
  if (!g_observe_nested_ops && NeedsNoScope(info, keys, tensors)) return redispatch(keys & kBelowObserver);
  BeginObservedOp(info, tensors);
  const DispatchedOpEnd end{at::sequence_number::peek()};
  g_profile.Add(PluginPhase::kOpStart, start);
  return redispatch(keys & kBelowObserver);
}

void OnDispatchedOp(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  const size_t count = std::min(op.schema().arguments().size(), stack->size());  // the stack's top
  const c10::ArrayRef<const c10::IValue> arguments(stack->data() + stack->size() - count, count);
  ObserveDispatchedOp(
      op.schema(), keys, [&](TensorSink sink) { ForEachArgumentTensor(arguments, sink); },
      [&](c10::DispatchKeySet below) { op.redispatchBoxed(below, stack); });
}

// The tensors of one typed argument, as ForEachArgumentTensor gives a boxed one's.
template <typename T>
void VisitArgument(const T&, size_t, TensorSink) {}
void VisitArgument(const at::Tensor& t, size_t i, TensorSink sink) { sink(t, i); }
void VisitArgument(const std::optional<at::Tensor>& t, size_t i, TensorSink sink) {
  if (t.has_value()) sink(*t, i);
}
void VisitArgument(at::TensorList tensors, size_t i, TensorSink sink) {
  for (const at::Tensor& t : tensors) sink(t, i);
}
void VisitArgument(const at::ITensorListRef& tensors, size_t i, TensorSink sink) {
  for (const at::Tensor& t : tensors) sink(t, i);
}

// The unboxed kernel of one op (at::_ops::<op>: its schema's C++ signature,
// name and redispatch), registered with the DispatchKeySet first as
// autograd's own kernels are.
template <class Op, class Signature = typename Op::schema>
struct UnboxedObserver;
template <class Op, class Result, class... Args>
struct UnboxedObserver<Op, Result(Args...)> {
  static Result Call(c10::DispatchKeySet keys, Args... args) {
    static const c10::FunctionSchema& schema =
        c10::Dispatcher::singleton().findSchemaOrThrow(Op::name, Op::overload_name).schema();
    return ObserveDispatchedOp(
        schema, keys,
        [&](TensorSink sink) {
          size_t i = 0;
          (VisitArgument(args, i++, sink), ...);
          (void)i;
        },
        [&](c10::DispatchKeySet below) -> Result { return Op::redispatch(below, std::forward<Args>(args)...); });
  }
  static void Register(torch::Library& aten) {
    std::string name = Op::name;
    if (name.rfind("aten::", 0) == 0) name.erase(0, 6);
    if (*Op::overload_name != '\0') name.append(".").append(Op::overload_name);
    aten.impl(name.c_str(), TORCH_FN(Call));
  }
};

// The ops training steps call most from Python and inside backward nodes
// (the DDP benchmark's census, tests/gpu/bench/results/README.md; ResNet's
// convolutions, batch norms and pools), views and AdamW's CPU aten::item
// among them: each saves boxing its arguments. Ops whose arguments hold a
// Tensor?[] (indexing) stay boxed.
template <class... Ops>
void RegisterUnboxed(torch::Library& aten) {
  (UnboxedObserver<Ops>::Register(aten), ...);
}
void RegisterUnboxedObservers(torch::Library& aten) {
  namespace ops = at::_ops;
  // Views, matmuls, pointwise and reduction ops, attention, losses, and their
  // backward ops (the DDP reducer's mul_out among them).
  RegisterUnboxed<ops::item, ops::_local_scalar_dense, ops::as_strided, ops::view, ops::reshape, ops::_unsafe_view,
                  ops::select_int, ops::slice_Tensor, ops::expand, ops::contiguous, ops::unflatten_int,
                  ops::flatten_using_ints, ops::clone, ops::linear, ops::mm, ops::addmm, ops::bmm, ops::matmul,
                  ops::add_Tensor, ops::add__Tensor, ops::add__Scalar, ops::mul_Tensor, ops::mul__Tensor,
                  ops::mul__Scalar, ops::mul_out, ops::sub_Tensor, ops::div_Tensor, ops::div__Tensor,
                  ops::div__Scalar, ops::sum_dim_IntList, ops::sum, ops::mean_dim, ops::copy_, ops::zero_,
                  ops::fill__Scalar, ops::relu, ops::threshold_backward, ops::gelu, ops::gelu_backward, ops::silu,
                  ops::silu_backward, ops::tanh, ops::sigmoid, ops::exp, ops::neg, ops::rsqrt,
                  ops::pow_Tensor_Scalar, ops::where_self, ops::dropout, ops::native_dropout,
                  ops::native_dropout_backward, ops::layer_norm, ops::native_layer_norm,
                  ops::native_layer_norm_backward, ops::select_backward, ops::slice_backward, ops::empty_like,
                  ops::ones_like, ops::zeros_like, ops::new_empty_strided, ops::_to_copy, ops::to_dtype,
                  ops::to_dtype_layout, ops::to_device, ops::scaled_dot_product_attention,
                  ops::_scaled_dot_product_efficient_attention_backward, ops::softmax_int, ops::_softmax,
                  ops::_log_softmax, ops::_softmax_backward_data, ops::_log_softmax_backward_data,
                  ops::cross_entropy_loss, ops::nll_loss_forward, ops::nll_loss_backward, ops::embedding,
                  ops::embedding_dense_backward, ops::masked_fill__Scalar, ops::cat, ops::stack>(aten);
  // Convolutional networks: convolution, batch norm, pooling.
  RegisterUnboxed<ops::conv2d, ops::convolution, ops::_convolution, ops::cudnn_convolution,
                  ops::convolution_backward, ops::batch_norm, ops::_batch_norm_impl_index,
                  ops::_batch_norm_impl_index_backward, ops::cudnn_batch_norm, ops::cudnn_batch_norm_backward,
                  ops::native_batch_norm, ops::native_batch_norm_backward, ops::max_pool2d,
                  ops::max_pool2d_with_indices, ops::max_pool2d_with_indices_backward, ops::adaptive_avg_pool2d,
                  ops::_adaptive_avg_pool2d, ops::_adaptive_avg_pool2d_backward>(aten);
  // The optimizers' multi-tensor ops.
  RegisterUnboxed<ops::_foreach_add__List, ops::_foreach_add__Scalar, ops::_foreach_add__Tensor,
                  ops::_foreach_mul__Scalar, ops::_foreach_mul__List, ops::_foreach_mul__ScalarList,
                  ops::_foreach_addcmul__Scalar, ops::_foreach_addcdiv__ScalarList, ops::_foreach_lerp__Scalar,
                  ops::_foreach_sqrt, ops::_foreach_div__ScalarList, ops::_foreach_div__Scalar,
                  ops::_foreach_norm_Scalar, ops::_foreach_zero_, ops::_foreach_copy_, ops::_fused_adamw_>(aten);
}

// Ops that only make a view, and whose backward only makes a view too
// (derivatives.yaml: transpose's is a transpose, unsqueeze's a squeeze):
// nothing inside them, forward or backward, launches, copies or allocates,
// so no record ever takes their name or Python stack. They fall through the
// observer's key: the dispatcher skips it for them without boxing their
// arguments, which for the DDP benchmark's step (some 140 such ops, most on
// autograd's threads inside backward nodes) was most of what observing them
// cost. Not aten::view, reshape, expand, select, slice, as_strided: their
// backward may copy (a reshape of a strided gradient) or allocate, and those
// kernels take their forward op's stack from the op's observation.
constexpr const char* kPureViewOps[] = {"transpose.int", "t",           "permute", "unsqueeze", "squeeze",
                                        "squeeze.dim",   "squeeze.dims", "alias",   "detach"};

// Kernels of their own for the ops above; without them (PyTorch refused one)
// every op takes the boxed fallback: costs time, loses nothing.
void RegisterOpKernels() try {
  static auto* aten = new torch::Library(torch::Library::IMPL, "aten", kObserverKey, __FILE__, __LINE__);
  for (const char* name : kPureViewOps) aten->impl(name, torch::CppFunction::makeFallthrough());
  RegisterUnboxedObservers(*aten);
} catch (const std::exception& e) {
  std::fprintf(stderr, "streamcheck: some ops take the boxed observer (%s)\n", e.what());
}

}  // namespace

bool AttachDispatchObserver(std::string* why) try {
  static auto* library = new torch::Library(torch::Library::IMPL, "_", kObserverKey, __FILE__, __LINE__);
  library->fallback(torch::CppFunction::makeFromBoxedFunction<&OnDispatchedOp>());
  if (!g_observe_nested_ops) RegisterOpKernels();
  c10::impl::tls_set_dispatch_key_included(kObserverKey, true);
  return true;
} catch (const std::exception& e) {
  *why = e.what();
  return false;
}

}  // namespace streamcheck::pytorch
