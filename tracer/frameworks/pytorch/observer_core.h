// What the PyTorch plugin's op observers share (torch_plugin.cpp defines it):
// each op's schema facts, the bytes of its tensor arguments, and the scope an
// observed op opens with the tracer. The RecordFunction observer lives in
// torch_plugin.cpp; the dispatch-key observer, boxed and unboxed, in
// dispatch_key_observer.cpp.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/FunctionRef.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tracer/debug/tracer_profile.h"
#include "tracer/frameworks/framework_hooks.h"

namespace streamcheck::pytorch {

extern const StreamcheckFrameworkHooks* g_hooks;

// STREAMCHECK_DEBUG=profile: the plugin's share of the time, printed at exit.
enum class PluginPhase { kOpStart, kPythonStack, kAllocatorEvent, kCount };
extern tracer::PhaseProfile<PluginPhase> g_profile;

// STREAMCHECK_TORCH_ALL_OPS=1: every op observed in full, nested ones too.
extern bool g_observe_nested_ops;
// STREAMCHECK_DEBUG=observer-floor: observers that return at once, to
// measure what PyTorch's op observation costs by itself.
extern bool g_observer_floor;

// What the schema of one op says: its name's id and which arguments it writes.
struct OpInfo {
  uint32_t name = 0;
  bool dispatcher_op = false;  // a registered schema (not a named range such as autograd's wrappers)
  bool takes_device = false;   // a Device argument: it may make CUDA tensors from no CUDA tensor (to, empty)
  std::vector<bool> writes;    // by argument index
  // How many ops it nested when it last ran with them passed over (-1: not
  // yet known); decides how the next run hides them (torch_plugin.cpp's
  // OuterOp). Any thread may write it: a hint, relaxed.
  mutable std::atomic<int> nested_ops{-1};
};

// The info of the op `schema` describes.
const OpInfo& InfoOf(const c10::FunctionSchema& schema);

// The bytes a strided tensor covers: from the lowest to one past the highest
// element it can address (a bounding range for views with gaps). False for a
// tensor with no memory of its own to see.
bool BytesOf(const at::Tensor& t, StreamcheckTensorRegion* out);

// An op's tensor arguments, each with its index in the op's schema, handed
// to a sink: boxed arguments (IValues) and typed ones alike.
using TensorSink = c10::function_ref<void(const at::Tensor& tensor, size_t argument)>;
using TensorSource = c10::function_ref<void(TensorSink)>;
// The tensors of boxed arguments in schema order: a Tensor, a Tensor[] and a
// Tensor?[] (indexing) each give theirs.
void ForEachArgumentTensor(c10::ArrayRef<const c10::IValue> arguments, TensorSink sink);

// The caching allocator's trace tracker, attached once the allocator exists.
void AttachAllocatorTracker();

// An observed op begins on this thread: the CUDA tensors `tensors` gives are
// its regions (written where the schema says so), and the outermost op on a
// thread takes its Python stack. EndOp ends it.
void BeginObservedOp(const OpInfo& info, TensorSource tensors);
void EndOp();

// The autograd nodes made since `first_sequence_nr` by an outermost op and
// the ops nested in it, which were not observed: each gets the op's stack.
void NoteNodesMadeSince(uint64_t first_sequence_nr);

}  // namespace streamcheck::pytorch
