// What each CUDA runtime call the analysis models does to the stream state:
// the ordering semantics of every ApiKind in cuda_api.h's table, following
// the CUDA runtime's "API synchronization behavior" and the programming
// guide's stream rules. Grep an API name in cuda_api.cpp for its row and its
// ApiKind here for its effect.
#include "analyzer/kernel_index_params.h"
#include "analyzer/transfer_walker.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

namespace streamcheck::lint {
namespace {

const clang::FunctionDecl* FunctionOf(const clang::Expr* e) {
  if (e == nullptr) return nullptr;
  e = e->IgnoreParenCasts();
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    e = u->getSubExpr()->IgnoreParenCasts();
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) return llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl());
  return nullptr;
}

}  // namespace

DeviceOp& TransferWalker::NewOp(const clang::Stmt* st, const std::string& api, const std::string& what,
                                const Symbol& stream, const std::string& part) {
  DeviceOp& op = fa_.ops_[fa_.ops_.Intern(st, frame_.context + part)];
  op.api = api;
  op.what = what;
  op.stream = stream;
  op.stream_id = fa_.ops_.StreamId(stream.key);
  op.context = frame_.context;
  op.accesses.clear();
  op.captured = false;
  op.staged_into_pageable = false;
  op.staged_destination = false;
  op.allocates.clear();
  op.frees.clear();
  op.first_step_stream = Symbol{};
  op.loc = Loc(st->getBeginLoc());
  op.inner_loc = st->getBeginLoc();
  op.helper = frame_.helper;
  return op;
}

// `streams[i]` in a loop: the first iteration's stream, `streams[0]`, which
// goes with the first iteration's accesses (BufferAccess::first_step).
void TransferWalker::FirstStepStream(DeviceOp& op, const clang::Expr* stream) {
  if (stream == nullptr || frame_.bindings.counters == nullptr) return;
  const clang::Expr* e = stream->IgnoreParenImpCasts();
  const clang::Expr* array = nullptr;
  const clang::Expr* index = nullptr;
  if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    array = sub->getBase();
    index = sub->getIdx();
  } else if (const auto* call = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
             call != nullptr && call->getOperator() == clang::OO_Subscript && call->getNumArgs() == 2) {
    array = call->getArg(0);
    index = call->getArg(1);
  }
  if (array == nullptr) return;
  const std::optional<int64_t> first = FirstIterationValue(index, *frame_.bindings.counters, ast_);
  const Symbol base = SymbolOf(array, frame_.bindings, ast_);
  if (!first || base.empty() || op.stream.key != base.key + "[*]") return;
  op.first_step_stream = Symbol{base.key + "[#" + std::to_string(*first) + "]",
                                base.text + "[" + std::to_string(*first) + "]"};
}

void TransferWalker::AddAccess(DeviceOp& op, const clang::Expr* ptr, AccessMode mode, const clang::Expr* count) {
  if (ptr == nullptr) return;
  BufferAccess a;
  a.ref = Buf(ptr);
  if (!a.ref.valid()) return;
  a.first_step = FirstStep(ptr);
  a.stride = Stride(op, ptr);
  a.unknown_strides = UnknownStridesAt(op.inner_loc, ptr);
  a.mode = mode;
  if (count != nullptr) {
    a.size_bytes = ConstantOf(count, ast_);
    const Symbol c = SymbolOf(count, frame_.bindings, ast_);
    a.size_key = c.empty() ? "?" : c.key;
  }
  op.accesses.push_back(a);
}

void TransferWalker::Issue(DeviceOp& op) {
  op.captured = s_.capturing.count(op.stream.key) != 0;
  if (report_) {
    fa_.ctx_.NewEvent();
    for (const auto& check : fa_.checks_) check->OnDeviceOp(op, s_, fa_.ctx_);
  }
  IssueOp(s_, op, fa_.ops_);
  // The budget: every op checks every pending one, so their number is bounded;
  // the oldest are taken as finished (a race with them is missed, none is made up).
  if (s_.pending.size() > fa_.options_.max_pending) {
    s_.pending.keep_newest(fa_.options_.max_pending);
    fa_.budget_.forgot_pending = true;
  }
}

void TransferWalker::KernelArgs(DeviceOp& op, const clang::FunctionDecl* kernel,
                                const std::vector<const clang::Expr*>& args) {
  if (kernel == nullptr) return;
  const std::vector<AccessMode>& modes = fa_.summaries_.ParamModes(kernel);
  const std::vector<std::vector<unsigned>> indexing = ScalarParamsIndexing(kernel);
  for (size_t i = 0; i < args.size() && i < modes.size(); ++i) {
    if (args[i] == nullptr || !kernel->getParamDecl(i)->getType()->isPointerType()) continue;
    // Touched only under a flag argument: not at all when it is false, only
    // if it holds when it is a condition the host may test again.
    const int flag = fa_.summaries_.FlagGuards(kernel)[i];
    const clang::Expr* flag_arg = flag >= 0 && static_cast<size_t>(flag) < args.size() ? args[flag] : nullptr;
    std::vector<std::string> flag_vars;
    std::optional<std::string> only_if;
    if (flag_arg != nullptr) {
      if (const std::optional<int64_t> c = ConstantOf(flag_arg, ast_)) {
        if (*c == 0) continue;
      } else {
        only_if = ConditionKey(flag_arg, frame_.bindings, ast_, &flag_vars);
        if (only_if && (flag_vars.empty() || (*only_if)[0] == '!')) only_if.reset();
      }
    }
    const size_t before = op.accesses.size();
    AddAccess(op, args[i], modes[i], nullptr);
    if (op.accesses.size() == before) continue;
    op.accesses.back().atomic = fa_.summaries_.AtomicOnly(kernel)[i];
    if (only_if) {
      op.accesses.back().only_if = *only_if;
      FlowState::Guard& link = s_.launched_under[*only_if];
      link.ops.insert(op.id);
      link.vars = flag_vars;
    }
    if (i >= indexing.size() || indexing[i].empty()) continue;
    std::string range = kernel->getNameAsString() + "(";
    for (unsigned q : indexing[i]) {
      const clang::Expr* arg = q < args.size() ? args[q] : nullptr;
      const Symbol v = arg != nullptr ? Sym(arg) : Symbol{};
      range += (v.empty() ? (arg != nullptr ? TextOf(arg, ast_) : "?") : v.key) + ",";
    }
    op.accesses.back().index_range = range + ")";
  }
}

void TransferWalker::KernelLaunch(const clang::CUDAKernelCallExpr* k) {
  const clang::FunctionDecl* kernel = k->getDirectCallee();
  const clang::CallExpr* config = k->getConfig();
  const Symbol stream = StreamSym(config != nullptr ? Arg(config, 3) : nullptr);
  ++fa_.cuda_calls_;
  const std::string name = kernel != nullptr ? kernel->getNameAsString() : TextOf(k->getCallee(), ast_);
  DeviceOp& op = NewOp(k, "<<<>>>", "kernel `" + name + "`", stream);
  FirstStepStream(op, config != nullptr ? Arg(config, 3) : nullptr);
  std::vector<const clang::Expr*> args(k->arg_begin(), k->arg_end());
  KernelArgs(op, kernel, args);
  Issue(op);
}

// cudaLaunchKernel(func, grid, block, args, shmem, stream) with `void* args[] = {&a, &b}`.
void TransferWalker::LaunchKernelApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const clang::FunctionDecl* kernel = FunctionOf(Arg(call, name == "cudaLaunchKernelEx" ? 1 : 0));
  Symbol stream;
  std::vector<const clang::Expr*> args;
  if (name == "cudaLaunchKernelEx") {
    const Symbol cfg = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
    const std::string field = PointeeKey(cfg) + ".stream";
    if (auto it = s_.values.find(field); !cfg.empty() && it != s_.values.end()) {
      stream = it->second;
    } else {
      stream = {"?" + field, PointeeText(cfg) + ".stream"};
    }
    for (unsigned i = 2; i < call->getNumArgs(); ++i) args.push_back(call->getArg(i));
  } else {
    stream = StreamSym(Arg(call, api.stream));
    const clang::Expr* array = Arg(call, 3);
    if (const auto* ref = array != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(array->IgnoreParenCasts()) : nullptr) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      const auto* init = var != nullptr && var->getInit() != nullptr
                             ? llvm::dyn_cast<clang::InitListExpr>(var->getInit()->IgnoreParenCasts())
                             : nullptr;
      for (unsigned i = 0; init != nullptr && i < init->getNumInits(); ++i) {
        const clang::Expr* e = init->getInit(i)->IgnoreParenCasts();
        const auto* addr = llvm::dyn_cast<clang::UnaryOperator>(e);
        args.push_back(addr != nullptr && addr->getOpcode() == clang::UO_AddrOf ? addr->getSubExpr() : nullptr);
      }
    }
  }
  DeviceOp& op = NewOp(call, name, "kernel `" + (kernel != nullptr ? kernel->getNameAsString() : "?") + "`", stream);
  KernelArgs(op, kernel, args);
  Issue(op);
}

void TransferWalker::Free(const BufferRef& ref, const Symbol& stream, const std::string& api,
                          clang::SourceLocation loc) {
  if (!ref.valid()) return;
  if (report_) {
    FreeEvent f{ref, api, stream, Loc(loc), loc, frame_.context};
    for (const auto& check : fa_.checks_) check->OnFree(f, s_, fa_.ctx_);
  }
  s_.freed[ref.base.key] = Loc(loc);
}

void TransferWalker::EventWaitHook(const Symbol& event, const Symbol& stream, const std::string& api,
                                   clang::SourceLocation loc) {
  if (!report_) return;
  EventWait w{event, stream, api, Loc(loc)};
  for (const auto& check : fa_.checks_) check->OnEventWait(w, s_, fa_.ctx_);
}

// Copies, as CUDA's "API synchronization behavior" has them. An async copy
// from pageable memory has read it when the call returns (as observed, and as
// the dynamic half models it: runtime/transfer_semantics.cpp), so the host
// buffer is not left pending on the stream. One into pageable memory is
// staged and may or may not run synchronously (staged_into_pageable). A
// blocking cudaMemcpy from pageable memory to the device synchronizes the
// stream first and returns once the data is staged: "the DMA to final
// destination may not have completed", so its destination stays pending
// (staged_destination); every other blocking copy but device-to-device
// returns when done. A pageable buffer on a side the kind says is the
// device's (a helper that copies device-to-device unless a query says the
// pointer is host memory, walked down both branches) makes a call "with dst
// and src pointers that do not match the direction of the copy", which CUDA
// leaves undefined: not an access the stream orders, so that side of it is
// left out, and the branch that can run decides. "For transfers from any
// host memory to any host memory", an async copy "is fully synchronous with
// respect to the host": the host's own read and write in the call, not
// stream work (as the dynamic half has it). A kind chosen by a condition
// (`dev == -1 ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice`, faiss's
// Tensor::copyFrom) is the one this path's test of it decided; untested, the
// copy is stream work pending only on the other value's paths
// (FlowState::guarded), so a later test of the same condition (the same query
// of the same pointer in another helper) finding host-to-host knows it done.
// The host-to-host value's own accesses are then not checked.
void TransferWalker::Copy(const clang::CallExpr* call, const ApiModel& api, const std::string& name, bool sync) {
  const Symbol stream = sync ? DefaultStream() : StreamSym(Arg(call, api.stream));
  std::optional<int64_t> kind = api.copy_kind >= 0 ? ConstantOf(Arg(call, api.copy_kind), ast_) : std::nullopt;
  if (api.copy_kind < 0) kind = api.direction >= 0 ? api.direction : static_cast<int>(CopyKind::kDeviceToDevice);
  std::optional<std::string> host_to_host_unless;  // the guard key of the value that copies to the device
  std::vector<std::string> kind_vars;
  if (!kind && api.copy_kind >= 0) {
    const auto* chosen = llvm::dyn_cast<clang::ConditionalOperator>(Arg(call, api.copy_kind)->IgnoreParenImpCasts());
    const std::optional<int64_t> on_true = chosen != nullptr ? ConstantOf(chosen->getTrueExpr(), ast_) : std::nullopt;
    const std::optional<int64_t> on_false = chosen != nullptr ? ConstantOf(chosen->getFalseExpr(), ast_) : std::nullopt;
    std::optional<std::string> key =
        on_true && on_false ? ConditionKey(chosen->getCond(), frame_.bindings, ast_, &kind_vars, &s_.query_values)
                            : std::nullopt;
    if (key && !kind_vars.empty()) {
      bool negated = false;
      while (key->size() > 1 && (*key)[0] == '!') {
        key->erase(0, 1);
        negated = !negated;
      }
      const int host_to_host = int(CopyKind::kHostToHost);
      if (auto fact = s_.facts.find(*key); fact != s_.facts.end()) {
        kind = fact->second.value != negated ? on_true : on_false;
      } else if ((*on_true == host_to_host) != (*on_false == host_to_host)) {
        // The condition's value (unnegated) on which the copy goes to the device.
        host_to_host_unless = GuardKey(*key, (*on_true == host_to_host) == negated);
      }
    }
  }
  const auto may_be = [&](CopyKind k) { return !kind || *kind == int(k) || *kind == int(CopyKind::kDefault); };
  const clang::Expr* dst = Arg(call, api.dst);
  const clang::Expr* src = Arg(call, api.src);
  if (!sync && kind && *kind == int(CopyKind::kHostToHost)) {
    // The host's own read and write, in the call (as runtime/transfer_semantics.cpp has it).
    HostRef(Buf(src), AccessMode::kRead, call->getBeginLoc());
    HostRef(Buf(dst), AccessMode::kWrite, call->getBeginLoc());
    return;
  }
  const bool pageable_src = IsPageableHost(src);
  const bool from_pageable = pageable_src && may_be(CopyKind::kHostToDevice);
  const auto device_side = [&](bool source) {
    return kind && (*kind == int(CopyKind::kDeviceToDevice) ||
                    *kind == int(source ? CopyKind::kDeviceToHost : CopyKind::kHostToDevice));
  };
  const bool mismatched_src = pageable_src && device_side(true);
  const bool mismatched_dst = IsPageableHost(dst) && device_side(false);
  const bool staged_sync = sync && from_pageable && !IsHostMemory(dst);
  if (staged_sync) HostSyncStream(s_, stream.key, fa_.ops_);
  DeviceOp& op = NewOp(call, name, name, stream);
  FirstStepStream(op, sync ? nullptr : Arg(call, api.stream));
  if (!mismatched_dst) AddAccess(op, dst, AccessMode::kWrite, Arg(call, api.count));
  if (!mismatched_src && (sync ? !staged_sync : !from_pageable)) {
    AddAccess(op, src, AccessMode::kRead, Arg(call, api.count));
  }
  op.staged_into_pageable = !sync && IsPageableHost(dst) && may_be(CopyKind::kDeviceToHost);
  op.staged_destination = staged_sync;
  Issue(op);
  if (sync && !staged_sync && !(kind && *kind == int(CopyKind::kDeviceToDevice))) {
    HostSyncStream(s_, stream.key, fa_.ops_);
  }
  if (host_to_host_unless) {
    FlowState::Guard& g = s_.guarded[*host_to_host_unless];
    g.ops.insert(op.id);
    g.vars = kind_vars;
  }
}

// "The synchronous memset functions are asynchronous with respect to the host
// except when the target is pinned host memory or a Unified Memory region, in
// which case they are fully synchronous" (CUDA's API synchronization behavior).
void TransferWalker::Memset(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const bool sync = api.kind == ApiKind::kMemsetSync;
  const Symbol stream = sync ? DefaultStream() : StreamSym(Arg(call, api.stream));
  DeviceOp& op = NewOp(call, name, name, stream);
  FirstStepStream(op, sync ? nullptr : Arg(call, api.stream));
  AddAccess(op, Arg(call, api.dst), AccessMode::kWrite, Arg(call, api.count));
  Issue(op);
  const BufferRef dst = Buf(Arg(call, api.dst));
  auto it = dst.valid() ? s_.buffers.find(dst.base.key) : s_.buffers.end();
  if (sync && it != s_.buffers.end() && (IsPinnedHost(it->second.kind) || it->second.kind == MemoryKind::kManaged)) {
    HostSyncStream(s_, stream.key, fa_.ops_);
  }
}

void TransferWalker::Allocate(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const clang::SourceLocation loc = call->getBeginLoc();
  if (api.kind == ApiKind::kHostRegister) {
    const BufferRef r = Buf(Arg(call, api.dst));
    if (r.valid()) s_.buffers[r.base.key] = BufferInfo{MemoryKind::kRegisteredHost, name, Loc(loc), "", Loc(loc)};
    return;
  }
  const Symbol out = SymbolOf(Arg(call, api.dst), frame_.bindings, ast_);
  if (out.empty()) return;
  const MemoryKind kind = api.kind == ApiKind::kMallocPinned    ? MemoryKind::kPinnedHost
                          : api.kind == ApiKind::kMallocManaged ? MemoryKind::kManaged
                          : api.kind == ApiKind::kMallocAsync   ? MemoryKind::kAsyncPool
                                                                : MemoryKind::kDevice;
  NoteAllocation(PointeeKey(out), kind, name, loc);
  if (api.kind == ApiKind::kMallocAsync) {
    // An operation on its stream: work elsewhere may use the memory only once
    // ordered after it (use-before-allocation). Captured, it is a graph
    // allocation node: the memory exists during each launch.
    DeviceOp& op = NewOp(call, name, name, StreamSym(Arg(call, api.stream)));
    op.allocates = PointeeKey(out);
    Issue(op);
  }
}

void TransferWalker::FreeApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const clang::SourceLocation loc = call->getBeginLoc();
  if (api.kind == ApiKind::kFreeDevice) {
    // cudaFree and cudaFreeHost synchronize the device before freeing.
    HostSyncDevice(s_, fa_.ops_);
    Free(Buf(Arg(call, api.dst)), Symbol{}, name, loc);
    return;
  }
  if (api.kind == ApiKind::kFreeHost) {
    Free(Buf(Arg(call, api.dst)), Symbol{}, name, loc);
    return;
  }
  const Symbol stream = StreamSym(Arg(call, api.stream));
  const BufferRef ref = Buf(Arg(call, api.dst));
  if (s_.capturing.count(stream.key) == 0) {
    Free(ref, stream, name, loc);
  } else if (ref.valid()) {
    // Captured, it is a graph free node: the memory is freed by each launch, not now.
    DeviceOp& op = NewOp(call, name, name, stream);
    op.frees = ref.base.key;
    Issue(op);
  }
}

void TransferWalker::CreateStream(const clang::CallExpr* call) {
  const Symbol out = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
  if (out.empty()) return;
  const std::optional<int64_t> flags = call->getNumArgs() > 1 ? ConstantOf(Arg(call, 1), ast_) : 0;
  StreamInfo info;
  info.kind = !flags ? StreamKind::kUnknown
              : (*flags & kCudaStreamNonBlocking) ? StreamKind::kNonBlocking
                                                  : StreamKind::kBlocking;
  info.owned = true;
  info.created = Loc(call->getBeginLoc());
  const std::string key = PointeeKey(out);
  s_.streams[key] = info;
  s_.after.erase(key);
  s_.values.erase(key);
  // streams[i] created in a loop: the whole array shares the flags.
  if (const size_t bracket = key.find('['); bracket != std::string::npos) {
    s_.streams[key.substr(0, bracket) + "[]"] = info;
  }
}

void TransferWalker::EventApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const clang::SourceLocation loc = call->getBeginLoc();
  switch (api.kind) {
    case ApiKind::kStreamWaitEvent: {
      const Symbol stream = StreamSym(Arg(call, 0));
      const Symbol event = Sym(Arg(call, 1));
      EventWaitHook(event, stream, name, loc);
      if (!event.empty()) StreamWaitEvent(s_, stream.key, event.key);
      return;
    }
    case ApiKind::kEventCreate: {
      const Symbol out = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
      if (out.empty()) return;
      const std::string key = PointeeKey(out);
      s_.events_created.insert(key);
      s_.event_recorded.erase(key);
      s_.event_capture.erase(key);
      return;
    }
    case ApiKind::kEventRecord: {
      const Symbol event = Sym(Arg(call, 0));
      if (!event.empty()) RecordEvent(s_, event.key, StreamSym(Arg(call, 1)), Loc(loc), fa_.ops_);
      return;
    }
    case ApiKind::kEventSync: {
      const Symbol event = Sym(Arg(call, 0));
      EventWaitHook(event, Symbol{}, name, loc);
      if (!event.empty()) HostSyncEvent(s_, event.key, fa_.ops_);
      return;
    }
    case ApiKind::kEventElapsed: {
      if (!report_) return;
      ElapsedTime e{Sym(Arg(call, 1)), Sym(Arg(call, 2)), Loc(loc)};
      if (e.stop.empty()) return;
      for (const auto& check : fa_.checks_) check->OnElapsedTime(e, s_, fa_.ctx_);
      return;
    }
    default: return;
  }
}

void TransferWalker::EndCapture(const clang::CallExpr* call) {
  EndCapture(StreamSym(Arg(call, 0)).key, SymbolOf(Arg(call, 1), frame_.bindings, ast_));
}

// The capture's work goes into `graph` (none: a graph the walk does not see),
// to run when it is launched.
void TransferWalker::EndCapture(const std::string& origin, const Symbol& graph) {
  GraphInfo captured;
  for (int id : s_.pending) {
    const DeviceOp& op = fa_.ops_[id];
    auto it = s_.capturing.find(op.stream.key);
    if (!op.captured || it == s_.capturing.end() || it->second != origin) continue;
    captured.nodes.insert(id);
    if (!op.allocates.empty()) captured.allocates.insert(op.allocates);
    if (!op.frees.empty()) captured.frees.insert(op.frees);
  }
  Complete(s_, captured.nodes);
  if (!graph.empty()) s_.graphs[PointeeKey(graph)] = std::move(captured);
  for (auto it = s_.capturing.begin(); it != s_.capturing.end();) {
    it = it->second == origin ? s_.capturing.erase(it) : std::next(it);
  }
  s_.capture_sites.erase(origin);
}

void TransferWalker::GraphApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  switch (api.kind) {
    case ApiKind::kGraphInstantiate: {
      const Symbol exec = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
      const Symbol graph = Sym(Arg(call, 1));
      if (exec.empty()) return;
      auto it = graph.empty() ? s_.graphs.end() : s_.graphs.find(graph.key);
      // From a graph of unknown content: whatever the exec held before is gone.
      if (it == s_.graphs.end()) {
        s_.graphs.erase(PointeeKey(exec));
      } else {
        s_.graphs[PointeeKey(exec)] = it->second;
      }
      return;
    }
    case ApiKind::kGraphLaunch: GraphLaunch(call, name); return;
    case ApiKind::kGraphCreate: {
      const Symbol out = SymbolOf(Arg(call, api.dst), frame_.bindings, ast_);
      if (!out.empty()) s_.graphs[PointeeKey(out)] = GraphInfo{};
      return;
    }
    default: GraphNode(call, api, name); return;
  }
}

void TransferWalker::GraphLaunch(const clang::CallExpr* call, const std::string& name) {
  const Symbol exec = Sym(Arg(call, 0));
  auto it = exec.empty() ? s_.graphs.end() : s_.graphs.find(exec.key);
  if (it == s_.graphs.end()) return;
  const GraphInfo graph = it->second;
  const clang::SourceLocation loc = call->getBeginLoc();
  // Each launch allocates its memory nodes' memory again (at the same
  // addresses), so it is live for this launch whatever freed it before.
  for (const std::string& base : graph.allocates) {
    s_.freed.erase(base);
    s_.buffers.try_emplace(base, BufferInfo{MemoryKind::kAsyncPool, "a graph memory node", Loc(loc), "", Loc(loc)});
  }
  DeviceOp& op = NewOp(call, name, "graph `" + exec.text + "`", StreamSym(Arg(call, 1)));
  for (int id : graph.nodes) {
    for (BufferAccess a : fa_.ops_[id].accesses) {
      a.stride.reset();  // a launch runs all the loop's iterations at once, again at each launch
      a.unknown_strides.clear();
      op.accesses.push_back(a);
    }
  }
  Issue(op);
  for (const std::string& base : graph.frees) s_.freed[base] = Loc(loc);
}

// Nodes added to a graph by API: memory nodes and 1-D copies.
void TransferWalker::GraphNode(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  const Symbol graph = Sym(Arg(call, api.graph));
  if (graph.empty()) return;
  switch (api.kind) {
    case ApiKind::kGraphMemAllocNode: {
      // The node's address comes back in params.dptr: a new buffer of the graph's own.
      const Symbol params = SymbolOf(Arg(call, api.dst), frame_.bindings, ast_);
      if (params.empty()) return;
      const std::string field = PointeeKey(params) + ".dptr";
      const Symbol memory{"@graph-alloc" + std::to_string(fa_.ops_.Intern(call, frame_.context)),
                          PointeeText(params) + ".dptr"};
      BufferRef ref;
      ref.base = memory;
      ref.offset_bytes = 0;
      s_.aliases[field] = ref;
      s_.buffers[memory.key] = BufferInfo{MemoryKind::kAsyncPool, name, Loc(call->getBeginLoc()), "", Loc(call->getBeginLoc())};
      s_.freed.erase(memory.key);
      s_.graphs[graph.key].allocates.insert(memory.key);
      return;
    }
    case ApiKind::kGraphMemFreeNode: {
      const BufferRef ref = Buf(Arg(call, api.dst));
      if (ref.valid()) s_.graphs[graph.key].frees.insert(ref.base.key);
      return;
    }
    case ApiKind::kGraphMemcpyNode: {
      // Runs only when the graph is launched: never pending by itself.
      DeviceOp& op = NewOp(call, name, name, Symbol{"#graph-node", "a graph node"});
      op.captured = true;
      AddAccess(op, Arg(call, api.dst), AccessMode::kWrite, Arg(call, api.count));
      AddAccess(op, Arg(call, api.src), AccessMode::kRead, Arg(call, api.count));
      s_.graphs[graph.key].nodes.insert(op.id);
      return;
    }
    default: return;
  }
}

void TransferWalker::Api(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
  ++fa_.cuda_calls_;
  const clang::SourceLocation loc = call->getBeginLoc();
  switch (api.kind) {
    case ApiKind::kKernelLaunch: LaunchKernelApi(call, api, name); return;
    case ApiKind::kMemcpyAsync: Copy(call, api, name, false); return;
    case ApiKind::kMemcpySync: Copy(call, api, name, true); return;
    case ApiKind::kMemsetAsync:
    case ApiKind::kMemsetSync: Memset(call, api, name); return;
    case ApiKind::kMallocDevice:
    case ApiKind::kMallocAsync:
    case ApiKind::kMallocPinned:
    case ApiKind::kMallocManaged:
    case ApiKind::kHostRegister: Allocate(call, api, name); return;
    case ApiKind::kMallocPageable: return;  // bound where the result is stored
    case ApiKind::kFreeDevice:
    case ApiKind::kFreeAsync:
    case ApiKind::kFreeHost: FreeApi(call, api, name); return;
    case ApiKind::kStreamCreate: CreateStream(call); return;
    case ApiKind::kStreamSync: HostSyncStream(s_, StreamSym(Arg(call, 0)).key, fa_.ops_); return;
    case ApiKind::kStreamQuery:
    case ApiKind::kEventQuery: return;  // a successful query synchronizes: see the CFG edges
    case ApiKind::kStreamWaitEvent:
    case ApiKind::kEventCreate:
    case ApiKind::kEventRecord:
    case ApiKind::kEventSync:
    case ApiKind::kEventElapsed: EventApi(call, api, name); return;
    case ApiKind::kDeviceSync: HostSyncDevice(s_, fa_.ops_); return;
    case ApiKind::kBeginCapture: {
      const Symbol stream = StreamSym(Arg(call, 0));
      s_.capturing[stream.key] = stream.key;
      s_.capture_sites[stream.key] = frame_.context;
      return;
    }
    case ApiKind::kEndCapture: EndCapture(call); return;
    case ApiKind::kGraphInstantiate:
    case ApiKind::kGraphLaunch:
    case ApiKind::kGraphCreate:
    case ApiKind::kGraphMemAllocNode:
    case ApiKind::kGraphMemFreeNode:
    case ApiKind::kGraphMemcpyNode: GraphApi(call, api, name); return;
    case ApiKind::kHostFunc: return;
    case ApiKind::kHostClock: return;
    case ApiKind::kHostMemcpy:
      Host(Arg(call, api.dst), nullptr, Use::kWrite, loc);
      Host(Arg(call, api.src), nullptr, Use::kRead, loc);
      return;
    case ApiKind::kHostMemset: Host(Arg(call, api.dst), nullptr, Use::kWrite, loc); return;
  }
}

}  // namespace streamcheck::lint
