#include "analyzer/function_analyzer.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Analysis/CFG.h>
#include <clang/Basic/SourceManager.h>

#include <set>

#include "analyzer/cuda_api.h"

namespace streamcheck::lint {

struct FunctionAnalyzer::Frame {
  Bindings bindings;
  clang::SourceLocation anchor;  // the call site in the analysed function; invalid at the top
  std::string helper;            // innermost inlined helper's name
  std::string context;           // call-site chain, keeps op ids distinct per call site
  std::vector<const clang::FunctionDecl*> stack;
};

namespace {

enum class Use { kValue, kRead, kWrite, kReadWrite, kAddress };

AccessMode ModeOf(Use u) {
  switch (u) {
    case Use::kWrite: return AccessMode::kWrite;
    case Use::kReadWrite: return AccessMode::kReadWrite;
    default: return AccessMode::kRead;
  }
}

// `&s` names the object s; a pointer parameter `s` names `*s`.
std::string PointeeKey(const Symbol& s) {
  if (s.key.rfind("&", 0) == 0) return s.key.substr(1);
  return "*" + s.key;
}
std::string PointeeText(const Symbol& s) {
  if (s.text.rfind("&", 0) == 0) return s.text.substr(1);
  return "*" + s.text;
}

bool IsStreamType(clang::QualType t) {
  const std::string name = t.getUnqualifiedType().getAsString();
  return name == "cudaStream_t" || name == "struct CUstream_st *" || name == "CUstream";
}

// Opaque CUDA handles: copied by value, never buffers.
bool IsHandleType(clang::QualType t) {
  const std::string name = t.getUnqualifiedType().getAsString();
  return IsStreamType(t) || name == "cudaEvent_t" || name == "cudaGraph_t" || name == "cudaGraphExec_t";
}

bool IsStdVector(clang::QualType t) {
  const auto* rd = t->getAsCXXRecordDecl();
  return rd != nullptr && rd->getQualifiedNameAsString() == "std::vector";
}

const clang::CallExpr* AsCall(const clang::Expr* e) {
  return e == nullptr ? nullptr : llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenCasts());
}

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

// The transfer function of one CFG element, written as a top-down walk that
// carries how each lvalue is used (read, written, address taken).
class TransferWalker {
 public:
  TransferWalker(FunctionAnalyzer& fa, FlowState& state, const FunctionAnalyzer::Frame& frame, bool report,
                 std::set<const clang::Stmt*>& done)
      : fa_(fa), ast_(fa.ast_), s_(state), frame_(frame), report_(report), done_(done) {}

  void Visit(const clang::Stmt* st, Use use) {
    if (st == nullptr || !done_.insert(st).second) return;
    if (llvm::isa<clang::LambdaExpr>(st) || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(st)) return;
    if (const auto* c = llvm::dyn_cast<clang::AbstractConditionalOperator>(st)) {
      Visit(c->getCond(), Use::kValue);  // the arms are blocks of their own
      return;
    }
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(st)) {
      if (b->isLogicalOp()) {
        Visit(b->getLHS(), Use::kValue);
        return;
      }
      if (b->isAssignmentOp()) {
        Assign(b);
        return;
      }
    }
    if (const auto* ds = llvm::dyn_cast<clang::DeclStmt>(st)) {
      for (const clang::Decl* d : ds->decls()) {
        if (const auto* v = llvm::dyn_cast<clang::VarDecl>(d)) Declare(v);
      }
      return;
    }
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(st)) {
      if (u->isIncrementDecrementOp()) {
        Visit(u->getSubExpr(), Use::kReadWrite);
        return;
      }
      if (u->getOpcode() == clang::UO_AddrOf) {
        Visit(u->getSubExpr(), Use::kAddress);
        return;
      }
      if (u->getOpcode() == clang::UO_Deref) {
        if (use != Use::kAddress) Host(u->getSubExpr(), nullptr, use, u->getBeginLoc());
        Visit(u->getSubExpr(), Use::kValue);
        return;
      }
    }
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(st)) {
      if (use != Use::kAddress) Host(sub->getBase(), sub->getIdx(), use, sub->getBeginLoc());
      Visit(sub->getBase(), Use::kValue);
      Visit(sub->getIdx(), Use::kValue);
      return;
    }
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(st); m != nullptr && m->isArrow()) {
      if (use != Use::kAddress) Host(m->getBase(), nullptr, use, m->getBeginLoc());
      Visit(m->getBase(), Use::kValue);
      return;
    }
    if (const auto* del = llvm::dyn_cast<clang::CXXDeleteExpr>(st)) {
      Free(BufferOf(del->getArgument(), frame_.bindings, ast_), Symbol{}, del->isArrayForm() ? "delete[]" : "delete",
           del->getBeginLoc());
      return;
    }
    if (const auto* k = llvm::dyn_cast<clang::CUDAKernelCallExpr>(st)) {
      KernelLaunch(k);
      return;
    }
    if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(st)) {
      // std::vector<T>::operator[] on the host.
      if (op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2 && IsStdVector(op->getArg(0)->getType())) {
        if (use != Use::kAddress) Host(op->getArg(0), op->getArg(1), use, op->getBeginLoc());
        Visit(op->getArg(1), Use::kValue);
        return;
      }
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(st)) {
      Call(call);
      return;
    }
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(st);
        cast != nullptr && cast->getCastKind() == clang::CK_LValueToRValue) {
      Visit(cast->getSubExpr(), Use::kRead);
      return;
    }
    const bool transparent = llvm::isa<clang::ParenExpr>(st) || llvm::isa<clang::CastExpr>(st);
    for (const clang::Stmt* child : st->children()) Visit(child, transparent ? use : Use::kValue);
  }

 private:
  clang::SourceLocation Loc(clang::SourceLocation inner) const {
    return frame_.anchor.isValid() ? frame_.anchor : inner;
  }

  BufferRef Buf(const clang::Expr* e) const {
    BufferRef r = BufferOf(e, frame_.bindings, ast_);
    if (!r.valid()) return r;
    // Follow `float* q = p + off` to p.
    for (int i = 0; i < 4; ++i) {
      auto it = s_.aliases.find(r.base.key);
      if (it == s_.aliases.end()) break;
      BufferRef base = it->second;
      if (!r.offset_key.empty()) {
        base.offset_key += (base.offset_key.empty() ? "" : "+") + r.offset_key;
        base.offset_text += (base.offset_text.empty() ? "" : " + ") + r.offset_text;
        base.offset_bytes = base.offset_bytes && r.offset_bytes ? std::optional<int64_t>(*base.offset_bytes + *r.offset_bytes)
                                                                : std::nullopt;
      }
      r = base;
    }
    return r;
  }

  Symbol Sym(const clang::Expr* e) const {
    Symbol s = SymbolOf(e, frame_.bindings, ast_);
    for (int i = 0; i < 4 && !s.empty(); ++i) {
      auto it = s_.values.find(s.key);
      if (it == s_.values.end()) break;
      s = it->second;
    }
    return s;
  }

  Symbol DefaultStream() const {
    return fa_.options_.per_thread_default_stream ? Symbol{kPerThreadStream, "the per-thread default stream"}
                                                  : Symbol{kLegacyStream, "the legacy default stream"};
  }

  Symbol StreamSym(const clang::Expr* e) const {
    if (e == nullptr || llvm::isa<clang::CXXDefaultArgExpr>(e)) return DefaultStream();
    Symbol s = Sym(e);
    if (s.key == "#0") return DefaultStream();
    if (s.key == "#1") return {kLegacyStream, "cudaStreamLegacy"};
    if (s.key == "#2") return {kPerThreadStream, "cudaStreamPerThread"};
    if (s.empty()) return {"?" + TextOf(e, ast_), TextOf(e, ast_)};
    return s;
  }

  const clang::Expr* Arg(const clang::CallExpr* call, int i) const {
    if (i < 0 || static_cast<unsigned>(i) >= call->getNumArgs()) return nullptr;
    return call->getArg(i);
  }

  void Host(const clang::Expr* base, const clang::Expr* index, Use use, clang::SourceLocation loc) {
    if (!report_ || use == Use::kAddress) return;
    if (!base->getType()->isPointerType() && !base->getType()->isArrayType() && !IsStdVector(base->getType())) return;
    HostAccess h;
    h.access.ref = Buf(base);
    if (!h.access.ref.valid()) return;
    if (index != nullptr) {
      const std::optional<int64_t> c = ConstantOf(index, ast_);
      const Symbol idx = SymbolOf(index, frame_.bindings, ast_);
      if (!(c && *c == 0)) {
        h.access.ref.offset_key += (h.access.ref.offset_key.empty() ? "" : "+") + (idx.empty() ? "?" : idx.key);
        h.access.ref.offset_text += (h.access.ref.offset_text.empty() ? "" : " + ") + TextOf(index, ast_);
        const clang::QualType element = base->getType()->getPointeeOrArrayElementType()->getCanonicalTypeUnqualified();
        if (c && h.access.ref.offset_bytes && !element->isIncompleteType() && !element->isDependentType() &&
            !element->isVoidType()) {
          h.access.ref.offset_bytes = *h.access.ref.offset_bytes + *c * ast_.getTypeSizeInChars(element).getQuantity();
        } else {
          h.access.ref.offset_bytes.reset();
        }
      }
    }
    h.access.mode = ModeOf(use);
    h.access.size_bytes = 1;
    h.loc = Loc(loc);
    h.inner_loc = loc;
    h.helper = frame_.helper;
    for (const auto& check : fa_.checks_) check->OnHostAccess(h, s_, fa_.ctx_);
  }

  void NoteAllocation(const std::string& key, MemoryKind kind, const std::string& api, clang::SourceLocation loc) {
    s_.buffers[key] = BufferInfo{kind, api, Loc(loc)};
    s_.freed.erase(key);
    s_.aliases.erase(key);
  }

  // `p = malloc(n)`, `p = new T[n]`, `q = p + k`, `cfg.stream = s`.
  void Bind(const std::string& key, clang::QualType type, const clang::Expr* init, clang::SourceLocation loc) {
    if (init == nullptr) return;
    const clang::Expr* stripped = init->IgnoreParenCasts();
    if (IsHandleType(type)) {
      const Symbol v = IsStreamType(type) ? StreamSym(init) : Sym(init);
      if (!v.empty() && v.key != key) s_.values[key] = v;
      return;
    }
    if (type->isPointerType()) {
      if (llvm::isa<clang::CXXNewExpr>(stripped)) {
        NoteAllocation(key, MemoryKind::kPageableHost, "new[]", loc);
        return;
      }
      if (const clang::CallExpr* call = AsCall(stripped)) {
        if (const clang::FunctionDecl* fd = call->getDirectCallee(); fd != nullptr && fd->getIdentifier() != nullptr) {
          if (const ApiModel* api = FindApi(fd->getName()); api != nullptr && api->kind == ApiKind::kMallocPageable) {
            NoteAllocation(key, MemoryKind::kPageableHost, fd->getName().str(), loc);
            return;
          }
        }
      }
      const BufferRef r = Buf(init);
      if (r.valid() && r.base.key != key && !r.offset_key.empty()) {
        s_.aliases[key] = r;
      } else if (r.valid() && r.base.key != key) {
        s_.aliases[key] = r;
      } else {
        s_.aliases.erase(key);
      }
      return;
    }
    if (IsStreamType(type)) {
      const Symbol v = StreamSym(init);
      if (!v.empty() && v.key != key) s_.values[key] = v;
    }
  }

  void Declare(const clang::VarDecl* v) {
    const Symbol self = SymbolOfDecl(v, frame_.bindings);
    if (v->getType()->isArrayType() && !v->hasGlobalStorage()) {
      NoteAllocation(self.key, MemoryKind::kPageableHost, "a local array", v->getLocation());
    } else if (IsStdVector(v->getType())) {
      NoteAllocation(self.key, MemoryKind::kPageableHost, "std::vector", v->getLocation());
    }
    if (const clang::Expr* init = v->getInit()) {
      Visit(init, Use::kValue);
      Bind(self.key, v->getType(), init, v->getLocation());
    }
  }

  void Assign(const clang::BinaryOperator* b) {
    Visit(b->getRHS(), Use::kValue);
    const clang::Expr* lhs = b->getLHS()->IgnoreParenImpCasts();
    if (!b->isCompoundAssignmentOp() && (llvm::isa<clang::DeclRefExpr>(lhs) || llvm::isa<clang::MemberExpr>(lhs))) {
      const Symbol key = SymbolOf(lhs, frame_.bindings, ast_);
      if (!key.empty()) {
        s_.values.erase(key.key);
        Bind(key.key, lhs->getType(), b->getRHS(), b->getBeginLoc());
      }
      if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(lhs)) Visit(m->getBase(), Use::kValue);
      return;
    }
    Visit(b->getLHS(), b->isCompoundAssignmentOp() ? Use::kReadWrite : Use::kWrite);
  }

  DeviceOp& NewOp(const clang::Stmt* st, const std::string& api, const std::string& what, const Symbol& stream) {
    DeviceOp& op = fa_.ops_[fa_.ops_.Intern(st, frame_.context)];
    op.api = api;
    op.what = what;
    op.stream = stream;
    op.accesses.clear();
    op.captured = false;
    op.loc = Loc(st->getBeginLoc());
    op.inner_loc = st->getBeginLoc();
    op.helper = frame_.helper;
    return op;
  }

  void AddAccess(DeviceOp& op, const clang::Expr* ptr, AccessMode mode, const clang::Expr* count) {
    if (ptr == nullptr) return;
    BufferAccess a;
    a.ref = Buf(ptr);
    if (!a.ref.valid()) return;
    a.mode = mode;
    if (count != nullptr) {
      a.size_bytes = ConstantOf(count, ast_);
      const Symbol c = SymbolOf(count, frame_.bindings, ast_);
      a.size_key = c.empty() ? "?" : c.key;
    }
    op.accesses.push_back(a);
  }

  void Issue(DeviceOp& op) {
    op.captured = s_.capturing.count(op.stream.key) != 0;
    if (report_) {
      for (const auto& check : fa_.checks_) check->OnDeviceOp(op, s_, fa_.ctx_);
    }
    IssueOp(s_, op, fa_.ops_);
  }

  void KernelArgs(DeviceOp& op, const clang::FunctionDecl* kernel, const std::vector<const clang::Expr*>& args) {
    if (kernel == nullptr) return;
    const std::vector<AccessMode>& modes = fa_.summaries_.ParamModes(kernel);
    for (size_t i = 0; i < args.size() && i < modes.size(); ++i) {
      if (args[i] == nullptr || !kernel->getParamDecl(i)->getType()->isPointerType()) continue;
      AddAccess(op, args[i], modes[i], nullptr);
    }
  }

  void KernelLaunch(const clang::CUDAKernelCallExpr* k) {
    const clang::FunctionDecl* kernel = k->getDirectCallee();
    const clang::CallExpr* config = k->getConfig();
    const Symbol stream = StreamSym(config != nullptr ? Arg(config, 3) : nullptr);
    const std::string name = kernel != nullptr ? kernel->getNameAsString() : TextOf(k->getCallee(), ast_);
    DeviceOp& op = NewOp(k, "<<<>>>", "kernel `" + name + "`", stream);
    std::vector<const clang::Expr*> args(k->arg_begin(), k->arg_end());
    KernelArgs(op, kernel, args);
    Issue(op);
  }

  // cudaLaunchKernel(func, grid, block, args, shmem, stream) with `void* args[] = {&a, &b}`.
  void LaunchKernelApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
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

  void Free(const BufferRef& ref, const Symbol& stream, const std::string& api, clang::SourceLocation loc) {
    if (!ref.valid()) return;
    if (report_) {
      FreeEvent f{ref, api, stream, Loc(loc)};
      for (const auto& check : fa_.checks_) check->OnFree(f, s_, fa_.ctx_);
    }
    s_.freed[ref.base.key] = Loc(loc);
  }

  void EventWaitHook(const Symbol& event, const Symbol& stream, const std::string& api, clang::SourceLocation loc) {
    if (!report_) return;
    EventWait w{event, stream, api, Loc(loc)};
    for (const auto& check : fa_.checks_) check->OnEventWait(w, s_, fa_.ctx_);
  }

  void Copy(const clang::CallExpr* call, const ApiModel& api, const std::string& name, bool sync) {
    const Symbol stream = sync ? DefaultStream() : StreamSym(Arg(call, api.stream));
    DeviceOp& op = NewOp(call, name, name, stream);
    AddAccess(op, Arg(call, api.dst), AccessMode::kWrite, Arg(call, api.count));
    AddAccess(op, Arg(call, api.src), AccessMode::kRead, Arg(call, api.count));
    std::optional<int64_t> kind = api.copy_kind >= 0 ? ConstantOf(Arg(call, api.copy_kind), ast_) : std::nullopt;
    if (api.copy_kind < 0) kind = static_cast<int>(CopyKind::kDeviceToDevice);
    if (report_ && !sync) {
      // Which side is host memory: by the copy kind, or by what we know of the buffers.
      for (int side : {api.src, api.dst}) {
        const bool is_src = side == api.src;
        if (kind && ((*kind == int(CopyKind::kHostToDevice) && !is_src) ||
                     (*kind == int(CopyKind::kDeviceToHost) && is_src) || *kind == int(CopyKind::kDeviceToDevice))) {
          continue;
        }
        const BufferRef r = Buf(Arg(call, side));
        auto it = r.valid() ? s_.buffers.find(r.base.key) : s_.buffers.end();
        if (it == s_.buffers.end()) continue;
        AsyncCopy c{&op, r, &it->second, is_src};
        for (const auto& check : fa_.checks_) check->OnAsyncCopy(c, s_, fa_.ctx_);
      }
    }
    Issue(op);
    if (sync && !(kind && *kind == int(CopyKind::kDeviceToDevice))) HostSyncStream(s_, stream.key, fa_.ops_);
  }

  void Api(const clang::CallExpr* call, const ApiModel& api, const std::string& name) {
    const clang::SourceLocation loc = call->getBeginLoc();
    switch (api.kind) {
      case ApiKind::kKernelLaunch: LaunchKernelApi(call, api, name); return;
      case ApiKind::kMemcpyAsync: Copy(call, api, name, false); return;
      case ApiKind::kMemcpySync: Copy(call, api, name, true); return;
      case ApiKind::kMemsetAsync:
      case ApiKind::kMemsetSync: {
        const Symbol stream = api.kind == ApiKind::kMemsetSync ? DefaultStream() : StreamSym(Arg(call, api.stream));
        DeviceOp& op = NewOp(call, name, name, stream);
        AddAccess(op, Arg(call, api.dst), AccessMode::kWrite, Arg(call, api.count));
        Issue(op);
        return;
      }
      case ApiKind::kMallocDevice:
      case ApiKind::kMallocAsync:
      case ApiKind::kMallocPinned:
      case ApiKind::kMallocManaged: {
        const Symbol out = SymbolOf(Arg(call, api.dst), frame_.bindings, ast_);
        if (out.empty()) return;
        const MemoryKind kind = api.kind == ApiKind::kMallocPinned    ? MemoryKind::kPinnedHost
                                : api.kind == ApiKind::kMallocManaged ? MemoryKind::kManaged
                                : api.kind == ApiKind::kMallocAsync   ? MemoryKind::kAsyncPool
                                                                      : MemoryKind::kDevice;
        NoteAllocation(PointeeKey(out), kind, name, loc);
        return;
      }
      case ApiKind::kHostRegister: {
        const BufferRef r = Buf(Arg(call, api.dst));
        if (r.valid()) s_.buffers[r.base.key] = BufferInfo{MemoryKind::kRegisteredHost, name, Loc(loc)};
        return;
      }
      case ApiKind::kMallocPageable: return;  // bound where the result is stored
      case ApiKind::kFreeDevice:
        // cudaFree and cudaFreeHost synchronize the device before freeing.
        HostSyncDevice(s_, fa_.ops_);
        Free(Buf(Arg(call, api.dst)), Symbol{}, name, loc);
        return;
      case ApiKind::kFreeAsync: Free(Buf(Arg(call, api.dst)), StreamSym(Arg(call, api.stream)), name, loc); return;
      case ApiKind::kFreeHost: Free(Buf(Arg(call, api.dst)), Symbol{}, name, loc); return;
      case ApiKind::kStreamCreate: {
        const Symbol out = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
        if (out.empty()) return;
        const std::optional<int64_t> flags = call->getNumArgs() > 1 ? ConstantOf(Arg(call, 1), ast_) : 0;
        StreamInfo info;
        info.kind = !flags ? StreamKind::kUnknown
                    : (*flags & kCudaStreamNonBlocking) ? StreamKind::kNonBlocking
                                                        : StreamKind::kBlocking;
        info.owned = true;
        info.created = Loc(loc);
        const std::string key = PointeeKey(out);
        s_.streams[key] = info;
        s_.after.erase(key);
        s_.values.erase(key);
        // streams[i] created in a loop: the whole array shares the flags.
        if (const size_t bracket = key.find('['); bracket != std::string::npos) {
          s_.streams[key.substr(0, bracket) + "[]"] = info;
        }
        return;
      }
      case ApiKind::kStreamSync: HostSyncStream(s_, StreamSym(Arg(call, 0)).key, fa_.ops_); return;
      case ApiKind::kStreamQuery:
      case ApiKind::kEventQuery: return;  // a successful query synchronizes: see the CFG edges
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
        if (!event.empty()) HostSyncEvent(s_, event.key);
        return;
      }
      case ApiKind::kEventElapsed: {
        if (!report_) return;
        ElapsedTime e{Sym(Arg(call, 1)), Sym(Arg(call, 2)), Loc(loc)};
        if (e.stop.empty()) return;
        for (const auto& check : fa_.checks_) check->OnElapsedTime(e, s_, fa_.ctx_);
        return;
      }
      case ApiKind::kDeviceSync: HostSyncDevice(s_, fa_.ops_); return;
      case ApiKind::kBeginCapture: {
        const Symbol stream = StreamSym(Arg(call, 0));
        s_.capturing[stream.key] = stream.key;
        return;
      }
      case ApiKind::kEndCapture: {
        const std::string origin = StreamSym(Arg(call, 0)).key;
        const Symbol graph = SymbolOf(Arg(call, 1), frame_.bindings, ast_);
        OpSet captured;
        for (int id : s_.pending) {
          const DeviceOp& op = fa_.ops_[id];
          auto it = s_.capturing.find(op.stream.key);
          if (op.captured && it != s_.capturing.end() && it->second == origin) captured.insert(id);
        }
        if (!graph.empty()) s_.graphs[PointeeKey(graph)] = captured;
        Complete(s_, captured);
        for (auto it = s_.capturing.begin(); it != s_.capturing.end();) {
          it = it->second == origin ? s_.capturing.erase(it) : std::next(it);
        }
        return;
      }
      case ApiKind::kGraphInstantiate: {
        const Symbol exec = SymbolOf(Arg(call, 0), frame_.bindings, ast_);
        const Symbol graph = Sym(Arg(call, 1));
        if (exec.empty() || graph.empty()) return;
        if (auto it = s_.graphs.find(graph.key); it != s_.graphs.end()) s_.graphs[PointeeKey(exec)] = it->second;
        return;
      }
      case ApiKind::kGraphLaunch: {
        const Symbol exec = Sym(Arg(call, 0));
        auto it = exec.empty() ? s_.graphs.end() : s_.graphs.find(exec.key);
        if (it == s_.graphs.end()) return;
        const OpSet nodes = it->second;
        DeviceOp& op = NewOp(call, name, "graph `" + exec.text + "`", StreamSym(Arg(call, 1)));
        for (int id : nodes) {
          for (const BufferAccess& a : fa_.ops_[id].accesses) op.accesses.push_back(a);
        }
        Issue(op);
        return;
      }
      case ApiKind::kHostFunc: return;
      case ApiKind::kHostClock: return;
      case ApiKind::kHostMemcpy:
        Host(Arg(call, api.dst), nullptr, Use::kWrite, loc);
        Host(Arg(call, api.src), nullptr, Use::kRead, loc);
        return;
      case ApiKind::kHostMemset: Host(Arg(call, api.dst), nullptr, Use::kWrite, loc); return;
    }
  }

  void Inline(const clang::CallExpr* call, const clang::FunctionDecl* fd) {
    FunctionAnalyzer::Frame inner;
    inner.anchor = Loc(call->getBeginLoc());
    inner.helper = fd->getNameAsString();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p/", static_cast<const void*>(call));
    inner.context = frame_.context + buf;
    inner.stack = frame_.stack;
    inner.stack.push_back(fd);
    for (unsigned i = 0; i < fd->getNumParams() && i < call->getNumArgs(); ++i) {
      const clang::ParmVarDecl* p = fd->getParamDecl(i);
      const clang::Expr* a = call->getArg(i);
      Symbol v = IsStreamType(p->getType()) ? StreamSym(a) : Sym(a);
      if (!v.empty()) inner.bindings.values[p] = v;
      if (p->getType()->isPointerType() && !IsHandleType(p->getType())) {
        const BufferRef r = Buf(a);
        if (r.valid()) inner.bindings.buffers[p] = r;
      }
    }
    s_ = fa_.RunCfg(fd, s_, inner, report_);
  }

  void Call(const clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    for (const clang::Expr* a : call->arguments()) Visit(a, a->getType()->isPointerType() ? Use::kAddress : Use::kValue);
    if (fd == nullptr || fd->getIdentifier() == nullptr) return;
    const llvm::StringRef name = fd->getName();
    if (name == "__cudaPushCallConfiguration" || name == "cudaConfigureCall") return;
    const clang::SourceManager& sm = ast_.getSourceManager();
    const bool user_code = sm.isInMainFile(sm.getExpansionLoc(fd->getLocation()));
    if (!user_code) {
      if (IsHostClock(fd->getQualifiedNameAsString())) {
        if (report_) {
          ClockRead r{fd->getQualifiedNameAsString(), Loc(call->getBeginLoc())};
          for (const auto& check : fa_.checks_) check->OnHostClock(r, s_, fa_.ctx_);
        }
        s_.since_clock = OpSet{};
        s_.clock_loc = Loc(call->getBeginLoc());
        return;
      }
      if (const ApiModel* api = FindApi(name)) Api(call, *api, std::string(name));
      return;
    }
    const clang::FunctionDecl* def = fd->getDefinition();
    if (def == nullptr || !def->hasBody() || def->hasAttr<clang::CUDAGlobalAttr>()) return;
    if (def->hasAttr<clang::CUDADeviceAttr>() && !def->hasAttr<clang::CUDAHostAttr>()) return;
    if (static_cast<int>(frame_.stack.size()) > fa_.options_.max_inline_depth) return;
    for (const clang::FunctionDecl* f : frame_.stack) {
      if (f == def) return;  // recursion: not followed
    }
    Inline(call, def);
  }

  FunctionAnalyzer& fa_;
  clang::ASTContext& ast_;
  FlowState& s_;
  const FunctionAnalyzer::Frame& frame_;
  bool report_;
  std::set<const clang::Stmt*>& done_;
};

namespace {

// For a branch on cudaStreamQuery/cudaEventQuery: the query and which
// successor (0 = true branch) is taken when it returned cudaSuccess.
const clang::CallExpr* QueryBranch(const clang::Expr* cond, const clang::ASTContext& ast, int* success_succ) {
  if (cond == nullptr) return nullptr;
  cond = cond->IgnoreParenImpCasts();
  const auto query_of = [](const clang::Expr* e) -> const clang::CallExpr* {
    e = e->IgnoreParenCasts();
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b != nullptr && b->getOpcode() == clang::BO_Assign) {
      e = b->getRHS()->IgnoreParenCasts();
    }
    const auto* call = llvm::dyn_cast<clang::CallExpr>(e);
    const clang::FunctionDecl* fd = call != nullptr ? call->getDirectCallee() : nullptr;
    if (fd == nullptr || fd->getIdentifier() == nullptr) return nullptr;
    const ApiModel* api = FindApi(fd->getName());
    return api != nullptr && (api->kind == ApiKind::kStreamQuery || api->kind == ApiKind::kEventQuery) ? call : nullptr;
  };
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(cond); u != nullptr && u->getOpcode() == clang::UO_LNot) {
    const clang::CallExpr* q = QueryBranch(u->getSubExpr(), ast, success_succ);
    if (q != nullptr) *success_succ = 1 - *success_succ;
    return q;
  }
  if (const clang::CallExpr* q = query_of(cond)) {
    *success_succ = 1;  // nonzero (an error) is true
    return q;
  }
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(cond);
  if (b == nullptr || (b->getOpcode() != clang::BO_EQ && b->getOpcode() != clang::BO_NE)) return nullptr;
  const clang::CallExpr* q = query_of(b->getLHS());
  const clang::Expr* other = b->getRHS();
  if (q == nullptr) {
    q = query_of(b->getRHS());
    other = b->getLHS();
  }
  if (q == nullptr) return nullptr;
  const std::optional<int64_t> c = ConstantOf(other, ast);
  if (!c) return nullptr;
  const bool eq = b->getOpcode() == clang::BO_EQ;
  const bool compares_success = *c == 0;  // cudaSuccess; anything else (cudaErrorNotReady) means "not yet"
  *success_succ = (eq == compares_success) ? 0 : 1;
  return q;
}

}  // namespace

FunctionAnalyzer::FunctionAnalyzer(clang::ASTContext& ast, const std::vector<std::unique_ptr<LintCheck>>& checks,
                                   CheckContext& ctx, OpTable& ops, const AnalyzerOptions& options)
    : ast_(ast), checks_(checks), ctx_(ctx), ops_(ops), options_(options), summaries_(ast) {}

FunctionAnalyzer::~FunctionAnalyzer() = default;

clang::CFG* FunctionAnalyzer::CfgOf(const clang::FunctionDecl* fn) {
  auto it = cfgs_.find(fn);
  if (it != cfgs_.end()) return it->second.get();
  clang::CFG::BuildOptions options;
  options.AddImplicitDtors = false;
  options.AddTemporaryDtors = false;
  options.AddInitializers = false;
  std::unique_ptr<clang::CFG> cfg = clang::CFG::buildCFG(fn, fn->getBody(), &ast_, options);
  return (cfgs_[fn] = std::move(cfg)).get();
}

FlowState FunctionAnalyzer::RunCfg(const clang::FunctionDecl* fn, const FlowState& entry, const Frame& frame,
                                   bool report) {
  clang::CFG* cfg = CfgOf(fn);
  if (cfg == nullptr) return entry;
  const unsigned n = cfg->getNumBlockIDs();
  std::vector<FlowState> out(n);
  std::vector<const clang::CFGBlock*> blocks(n, nullptr);
  for (const clang::CFGBlock* b : *cfg) blocks[b->getBlockID()] = b;

  const auto edge_state = [&](const clang::CFGBlock* pred, const clang::CFGBlock* succ) {
    FlowState st = out[pred->getBlockID()];
    if (!st.reached) return st;
    int success_succ = -1;
    const clang::CallExpr* q = QueryBranch(llvm::dyn_cast_or_null<clang::Expr>(pred->getTerminatorCondition()), ast_,
                                           &success_succ);
    if (q == nullptr || success_succ < 0 || pred->succ_size() != 2) return st;
    const clang::CFGBlock* taken = *(pred->succ_begin() + success_succ);
    if (taken != succ) return st;
    // The query returned cudaSuccess on this edge: the host has seen the work finish.
    const ApiModel* api = FindApi(q->getDirectCallee()->getName());
    const Symbol target = SymbolOf(q->getArg(0), frame.bindings, ast_);
    if (target.empty()) return st;
    if (api->kind == ApiKind::kStreamQuery) {
      std::string key = target.key;
      if (key == "#0") key = options_.per_thread_default_stream ? kPerThreadStream : kLegacyStream;
      HostSyncStream(st, key, ops_);
    } else {
      HostSyncEvent(st, target.key);
    }
    return st;
  };

  const auto in_state = [&](const clang::CFGBlock* b) {
    FlowState in;
    if (b == &cfg->getEntry()) {
      in = entry;
      in.reached = true;
    }
    for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
      const clang::CFGBlock* p = it->getReachableBlock();
      if (p == nullptr) continue;
      in = Join(in, edge_state(p, b));
    }
    return in;
  };

  const auto transfer = [&](const clang::CFGBlock* b, FlowState st, bool rep) {
    std::set<const clang::Stmt*> done;
    for (const clang::CFGElement& e : *b) {
      if (std::optional<clang::CFGStmt> cs = e.getAs<clang::CFGStmt>()) {
        TransferWalker(*this, st, frame, rep, done).Visit(cs->getStmt(), Use::kValue);
      }
    }
    return st;
  };

  // Blocks in descending id order are close to reverse post-order.
  for (int sweep = 0; sweep < 40; ++sweep) {
    bool changed = false;
    for (int id = static_cast<int>(n) - 1; id >= 0; --id) {
      const clang::CFGBlock* b = blocks[id];
      if (b == nullptr) continue;
      FlowState in = in_state(b);
      if (!in.reached) continue;
      FlowState next = transfer(b, std::move(in), false);
      if (!(next == out[id])) {
        out[id] = std::move(next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  if (report) {
    for (int id = static_cast<int>(n) - 1; id >= 0; --id) {
      const clang::CFGBlock* b = blocks[id];
      if (b == nullptr) continue;
      FlowState in = in_state(b);
      if (in.reached) transfer(b, std::move(in), true);
    }
  }
  const FlowState& exit = out[cfg->getExit().getBlockID()];
  return exit.reached ? exit : entry;
}

void FunctionAnalyzer::Analyze(const clang::FunctionDecl* fn) {
  Frame top;
  top.stack.push_back(fn);
  FlowState entry;
  entry.reached = true;
  RunCfg(fn, entry, top, true);
}

}  // namespace streamcheck::lint
