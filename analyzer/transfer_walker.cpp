// The statement walk of the transfer function: declarations, assignments,
// host reads and writes, scopes' ends. Calls are in helper_calls.cpp; what a
// CUDA call does is TransferWalker::Api's (cuda_api_semantics.cpp).
#include "analyzer/transfer_walker.h"

#include "analyzer/host_loops.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/Basic/SourceManager.h>

#include <cstdio>

namespace streamcheck::lint {
namespace {

AccessMode ModeOf(Use u) {
  switch (u) {
    case Use::kWrite: return AccessMode::kWrite;
    case Use::kReadWrite: return AccessMode::kReadWrite;
    default: return AccessMode::kRead;
  }
}

const clang::CallExpr* AsCall(const clang::Expr* e) {
  return e == nullptr ? nullptr : llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenCasts());
}

}  // namespace

// `&s` names the object s; a pointer parameter `s` names `*s`.
std::string PointeeKey(const Symbol& s) {
  if (s.key.rfind("&", 0) == 0) return s.key.substr(1);
  return "*" + s.key;
}
std::string PointeeText(const Symbol& s) {
  if (s.text.rfind("&", 0) == 0) return s.text.substr(1);
  return "*" + s.text;
}

// A reference to a handle (`cudaStream_t& s = streams[i]`) names the handle.
bool IsStreamType(clang::QualType t) {
  const std::string name = t.getNonReferenceType().getUnqualifiedType().getAsString();
  return name == "cudaStream_t" || name == "struct CUstream_st *" || name == "CUstream";
}

bool IsEventType(clang::QualType t) {
  const std::string name = t.getNonReferenceType().getUnqualifiedType().getAsString();
  return name == "cudaEvent_t" || name == "struct CUevent_st *" || name == "CUevent";
}

bool IsHandleType(clang::QualType t) {
  const std::string name = t.getNonReferenceType().getUnqualifiedType().getAsString();
  return IsStreamType(t) || IsEventType(t) || name == "cudaGraph_t" || name == "cudaGraphExec_t";
}

bool IsIterator(clang::QualType t) {
  const auto* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  return rd != nullptr && rd->getIdentifier() != nullptr && rd->getName().contains("iterator");
}

bool IsStdVector(clang::QualType t) {
  const auto* rd = t->getAsCXXRecordDecl();
  return rd != nullptr && rd->getQualifiedNameAsString() == "std::vector";
}

void TransferWalker::Visit(const clang::Stmt* st, Use use) {
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
  if (const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(st)) {
    Visit(ret->getRetValue(), Use::kValue);
    Return(ret->getRetValue());
    ReturnQueryTest(ret->getRetValue());
    return;
  }
  if (const auto* ds = llvm::dyn_cast<clang::DeclStmt>(st)) {
    for (const clang::Decl* d : ds->decls()) {
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(d)) Declare(v);
    }
    return;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(st)) {
    if (u->isIncrementDecrementOp()) {
      NoteRebound(u->getSubExpr());
      ForgetFacts(s_, SymbolOf(u->getSubExpr(), frame_.bindings, ast_).key);
      Visit(u->getSubExpr(), Use::kReadWrite);
      Step(u->getSubExpr(), u->isIncrementOp() ? 1 : -1, nullptr);
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
    // An iterator's *it and ++it (a range-for over a std::vector).
    if (op->getNumArgs() == 1 && IsIterator(op->getArg(0)->getType())) {
      if (op->getOperator() == clang::OO_Star) {
        if (use != Use::kAddress) Host(op->getArg(0), nullptr, use, op->getBeginLoc());
        return;
      }
      if (op->getOperator() == clang::OO_PlusPlus || op->getOperator() == clang::OO_MinusMinus) {
        Step(op->getArg(0), op->getOperator() == clang::OO_PlusPlus ? 1 : -1, nullptr);
        return;
      }
    }
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(st)) {
    Call(call);
    return;
  }
  // `new Trainer(...)`: its constructor runs on the new object.
  if (const auto* made = llvm::dyn_cast<clang::CXXNewExpr>(st)) {
    for (const clang::Stmt* child : st->children()) Visit(child, Use::kValue);
    const clang::CXXConstructExpr* construct = made->getConstructExpr();
    if (!made->isArray() && construct != nullptr) {
      Construct(made, construct->getConstructor(),
                std::vector<const clang::Expr*>(construct->arg_begin(), construct->arg_end()));
    }
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

clang::SourceLocation TransferWalker::Loc(clang::SourceLocation inner) const {
  return frame_.anchor.isValid() ? frame_.anchor : inner;
}

bool TransferWalker::IsPageableHost(const clang::Expr* e) const {
  const BufferRef r = Buf(e);
  auto it = r.valid() ? s_.buffers.find(r.base.key) : s_.buffers.end();
  return it != s_.buffers.end() && it->second.kind == MemoryKind::kPageableHost;
}

bool TransferWalker::IsHostMemory(const clang::Expr* e) const {
  const BufferRef r = Buf(e);
  auto it = r.valid() ? s_.buffers.find(r.base.key) : s_.buffers.end();
  return it != s_.buffers.end() && streamcheck::IsHostMemory(it->second.kind);
}

BufferRef TransferWalker::Buf(const clang::Expr* e) const {
  BufferRef r = BufferOf(e, frame_.bindings, ast_);
  if (!r.valid()) return r;
  // A range-for's hidden `__begin1` is not a name the reader wrote.
  const std::string spelled = r.base.text.rfind("__", 0) == 0 ? "" : r.Text();
  // Follow `float* q = p + off` to p; messages keep the name written here.
  for (int i = 0; i < 4; ++i) {
    auto it = s_.aliases.find(r.base.key);
    if (it == s_.aliases.end()) break;
    BufferRef base = it->second;
    if (!r.offset_key.empty()) {
      base.offset_key += (base.offset_key.empty() ? "" : "+") + r.offset_key;
      base.offset_text += (base.offset_text.empty() ? "" : " + ") + r.offset_text;
      base.offset_bytes = base.offset_bytes && r.offset_bytes
                              ? std::optional<int64_t>(*base.offset_bytes + *r.offset_bytes)
                              : std::nullopt;
    }
    r = base;
    if (!spelled.empty()) {
      r.base.text = spelled;
      r.offset_text.clear();
    }
  }
  return r;
}

Symbol TransferWalker::Sym(const clang::Expr* e) const {
  Symbol s = SymbolOf(e, frame_.bindings, ast_);
  for (int i = 0; i < 4 && !s.empty(); ++i) {
    auto it = s_.values.find(s.key);
    if (it == s_.values.end()) break;
    s = it->second;
  }
  return s;
}

Symbol TransferWalker::DefaultStream() const {
  return fa_.options_.per_thread_default_stream ? Symbol{kPerThreadStream, "the per-thread default stream"}
                                                : Symbol{kLegacyStream, "the legacy default stream"};
}

Symbol TransferWalker::StreamSym(const clang::Expr* e) const {
  if (e == nullptr || llvm::isa<clang::CXXDefaultArgExpr>(e)) return DefaultStream();
  Symbol s = Sym(e);
  if (s.key == "#0") return DefaultStream();
  if (s.key == "#1") return {kLegacyStream, "cudaStreamLegacy"};
  if (s.key == "#2") return {kPerThreadStream, "cudaStreamPerThread"};
  if (s.empty()) return {"?" + TextOf(e, ast_), TextOf(e, ast_)};
  return s;
}

const clang::Expr* TransferWalker::Arg(const clang::CallExpr* call, int i) const {
  if (i < 0 || static_cast<unsigned>(i) >= call->getNumArgs()) return nullptr;
  return call->getArg(i);
}

void TransferWalker::Host(const clang::Expr* base, const clang::Expr* index, Use use, clang::SourceLocation loc) {
  if (!report_ || use == Use::kAddress) return;
  const clang::QualType type = base->getType();
  if (!type->isPointerType() && !type->isArrayType() && !IsStdVector(type) && !IsIterator(type)) return;
  const BufferRef whole = Buf(base);
  if (!whole.valid()) return;
  const clang::QualType element = type->getPointeeOrArrayElementType()->getCanonicalTypeUnqualified();
  // `base[index]`, the index as written (`i * n`) or as a known value.
  const auto element_at = [&](const Symbol& idx, std::optional<int64_t> c) {
    BufferRef ref = whole;
    if (c && *c == 0) return ref;
    ref.offset_key += (ref.offset_key.empty() ? "" : "+") + (idx.empty() ? "?" : idx.key);
    ref.offset_text += (ref.offset_text.empty() ? "" : " + ") + TextOf(index, ast_);
    if (c && ref.offset_bytes && !element->isIncompleteType() && !element->isDependentType() &&
        !element->isVoidType()) {
      ref.offset_bytes = *ref.offset_bytes + *c * ast_.getTypeSizeInChars(element).getQuantity();
    } else {
      ref.offset_bytes.reset();
    }
    return ref;
  };
  if (index == nullptr) {
    HostRef(whole, ModeOf(use), loc);
    return;
  }
  const std::optional<int64_t> c = ConstantOf(index, ast_);
  HostRef(element_at(SymbolOf(index, frame_.bindings, ast_), c), ModeOf(use), loc, FirstStep(base, index));
}

std::optional<BufferRef> TransferWalker::FirstStep(const clang::Expr* base, const clang::Expr* offset) const {
  if (base == nullptr || offset == nullptr || ConstantOf(offset, ast_)) return std::nullopt;
  const std::optional<int64_t> first = FirstIterationValue(offset, fa_.loop_counters_, ast_);
  if (!first) return std::nullopt;
  BufferRef r = Buf(base);
  if (!r.valid() || *first == 0) return r.valid() ? std::optional<BufferRef>(r) : std::nullopt;
  r.offset_key += std::string(r.offset_key.empty() ? "#" : "+#") + std::to_string(*first);
  r.offset_text += (r.offset_text.empty() ? "" : " + ") + std::to_string(*first);
  const clang::QualType element = base->getType()->getPointeeOrArrayElementType()->getCanonicalTypeUnqualified();
  if (r.offset_bytes && !element->isIncompleteType() && !element->isDependentType() && !element->isVoidType()) {
    r.offset_bytes = *r.offset_bytes + *first * ast_.getTypeSizeInChars(element).getQuantity();
  } else {
    r.offset_bytes.reset();
  }
  return r;
}

std::optional<BufferRef> TransferWalker::FirstStep(const clang::Expr* pointer) const {
  if (pointer == nullptr) return std::nullopt;
  pointer = pointer->IgnoreParenCasts();
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(pointer); bin != nullptr && bin->getOpcode() == clang::BO_Add) {
    const bool pointer_left = bin->getLHS()->getType()->isPointerType() || bin->getLHS()->getType()->isArrayType();
    return pointer_left ? FirstStep(bin->getLHS(), bin->getRHS()) : FirstStep(bin->getRHS(), bin->getLHS());
  }
  const auto* address = llvm::dyn_cast<clang::UnaryOperator>(pointer);
  if (address != nullptr && address->getOpcode() == clang::UO_AddrOf) {
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(address->getSubExpr()->IgnoreParenCasts())) {
      return FirstStep(sub->getBase(), sub->getIdx());
    }
  }
  return std::nullopt;
}

std::optional<LoopStride> TransferWalker::Stride(const DeviceOp& op, const clang::Expr* pointer) const {
  if (frame_.may_run_again) return std::nullopt;
  std::optional<LoopStride> r = fa_.StrideOf(pointer);
  if (!r) return std::nullopt;
  // The op is issued in the statement the pointer is written in (not a
  // launch's argument array filled earlier).
  const auto* statement = static_cast<const clang::Stmt*>(r->statement);
  const clang::SourceManager& sm = ast_.getSourceManager();
  if (!sm.isPointWithin(op.inner_loc, statement->getBeginLoc(), statement->getEndLoc())) return std::nullopt;
  r->context = frame_.context;
  return r;
}

std::vector<LoopStride> TransferWalker::UnknownStridesAt(clang::SourceLocation at, const clang::Expr* pointer) const {
  std::vector<LoopStride> out;
  const clang::SourceManager& sm = ast_.getSourceManager();
  for (LoopStride r : fa_.UnknownStridesOf(pointer)) {
    const auto* statement = static_cast<const clang::Stmt*>(r.statement);
    if (!sm.isPointWithin(at, statement->getBeginLoc(), statement->getEndLoc())) continue;
    r.context = frame_.context;
    out.push_back(std::move(r));
  }
  // A parameter (or a pointer declared from one) bound at a call in such loops.
  const clang::Expr* e = pointer;
  for (int hops = 0; e != nullptr && hops < 8; ++hops) {
    e = e->IgnoreParenCasts();
    if (const std::optional<PointerSplit> split = SplitPointer(e)) {
      e = split->base;
      continue;
    }
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
    if (ref == nullptr) break;
    if (auto it = frame_.unknown_strides.find(ref->getDecl()); it != frame_.unknown_strides.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      break;
    }
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    e = var != nullptr && var->hasLocalStorage() && !llvm::isa<clang::ParmVarDecl>(var) ? var->getInit() : nullptr;
  }
  return out;
}

void TransferWalker::HostRef(const BufferRef& ref, AccessMode mode, clang::SourceLocation loc,
                             const std::optional<BufferRef>& first_step) {
  if (!report_ || !ref.valid()) return;
  HostAccess h;
  h.access.ref = ref;
  h.access.mode = mode;
  h.access.first_step = first_step;
  h.access.size_bytes = 1;
  h.loc = Loc(loc);
  h.inner_loc = loc;
  h.helper = frame_.helper;
  h.context = frame_.context;
  fa_.ctx_.NewEvent();
  for (const auto& check : fa_.checks_) check->OnHostAccess(h, s_, fa_.ctx_);
}

// The algorithm's first step stands for its sweep: a range read from `first`
// conflicts with pending device writes there, a range written with any use.
void TransferWalker::HostAlgorithmCall(const clang::CallExpr* call, const HostAlgorithm& algorithm) {
  const auto range = [&](int arg) { return arg < 0 ? BufferRef{} : Buf(Arg(call, arg)); };
  if (algorithm.read >= 0 && algorithm.read == algorithm.write) {
    HostRef(range(algorithm.read), AccessMode::kReadWrite, call->getBeginLoc());
    return;
  }
  HostRef(range(algorithm.read), AccessMode::kRead, call->getBeginLoc());
  HostRef(range(algorithm.read2), AccessMode::kRead, call->getBeginLoc());
  HostRef(range(algorithm.write), AccessMode::kWrite, call->getBeginLoc());
}

void TransferWalker::Step(const clang::Expr* pointer, int64_t sign, const clang::Expr* by) {
  const Symbol p = SymbolOf(pointer, frame_.bindings, ast_);
  auto it = p.empty() ? s_.aliases.end() : s_.aliases.find(p.key);
  if (it == s_.aliases.end()) return;
  BufferRef& r = it->second;
  const std::optional<int64_t> count = by == nullptr ? std::optional<int64_t>(1) : ConstantOf(by, ast_);
  const Symbol amount = by == nullptr ? Symbol{"#1", "1"} : SymbolOf(by, frame_.bindings, ast_);
  const std::string minus = sign < 0 ? "-" : "";
  r.offset_key += (r.offset_key.empty() ? "" : "+") + minus + (amount.empty() ? "?" : amount.key);
  r.offset_text += (r.offset_text.empty() ? "" : " + ") + minus + amount.text;
  const clang::QualType element = pointer->getType()->getPointeeType();
  if (count && r.offset_bytes && !element.isNull() && !element->isIncompleteType() && !element->isDependentType()) {
    r.offset_bytes = *r.offset_bytes + sign * *count * ast_.getTypeSizeInChars(element).getQuantity();
  } else {
    r.offset_bytes.reset();
  }
}

void TransferWalker::NoteAllocation(const std::string& key, MemoryKind kind, const std::string& api,
                                    clang::SourceLocation loc) {
  s_.buffers[key] = BufferInfo{kind, api, Loc(loc), frame_.context, loc};
  s_.freed.erase(key);
  s_.aliases.erase(key);
}

// `p = malloc(n)`, `p = new T[n]`, `q = p + k`, `cfg.stream = s`.
void TransferWalker::Bind(const std::string& key, clang::QualType type, const clang::Expr* init,
                          clang::SourceLocation loc) {
  if (init == nullptr) return;
  const clang::Expr* stripped = init->IgnoreParenCasts();
  // `auto v = fill(s)`, `float* p = make(n)`: what the inlined helper returned.
  if (s_.returned && !IsHandleType(type) && (type->isPointerType() || IsStdVector(type.getNonReferenceType()))) {
    const void* call = StripTemporaries(init);
    const BufferRef r = s_.returned->call == call ? s_.returned->ref : BufferRef{};
    s_.returned.reset();
    if (r.valid() && r.base.key != key) {
      s_.aliases[key] = r;
      return;
    }
  }
  if (IsHandleType(type)) {
    Symbol v = IsStreamType(type) ? StreamSym(init) : Sym(init);
    // `cudaStream_t s = make_stream();`: the stream the inlined helper returned.
    if (s_.returned && s_.returned->call == StripTemporaries(init)) v = s_.returned->ref.base;
    s_.returned.reset();
    if (!v.empty() && v.key != key) s_.values[key] = v;
    return;
  }
  if (type->isPointerType() || IsIterator(type)) {
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
        // An allocator of another file (its summary says what it returns).
        if (!fd->isDefined() && fa_.options_.summaries != nullptr) {
          auto it = fa_.options_.summaries->find(fa_.Usr(fd));
          if (it != fa_.options_.summaries->end() && it->second.returns_new) {
            NoteAllocation(key, *it->second.returns_new, fd->getName().str(), loc);
            return;
          }
        }
      }
    }
    const BufferRef r = Buf(init);
    if (r.valid() && r.base.key != key) {
      s_.aliases[key] = r;
    } else {
      s_.aliases.erase(key);
    }
    return;
  }
  if (IsStreamType(type)) {
    const Symbol v = StreamSym(init);
    if (!v.empty() && v.key != key) s_.values[key] = v;
    return;
  }
  if (type->isIntegralOrEnumerationType()) {
    RecordQueryResult(key, init);
    RecordPointerQuery(key, init);
  }
}

void TransferWalker::RecordPointerQuery(const std::string& key, const clang::Expr* value) {
  s_.query_values.erase(key);
  const clang::CallExpr* call = AsCall(StripTemporaries(value));
  if (call == nullptr) return;
  std::optional<QueryValue> q = PointerQueryOf(call);
  if (!q) return;
  // Not known to answer alike each time: only this variable's tests agree.
  if (q->key.rfind("loc?:", 0) == 0) {
    q->key += "|" + key;
    q->vars.push_back(key);
  }
  s_.query_values[key] = std::move(*q);
}

// A parameter written in its function keeps the key of the caller's
// argument (or its own, which a summary reads as the argument's), though it
// no longer holds that value: a query of it would answer for another pointer.
// (A reference parameter's write is the caller's variable's: kept alike.)
bool TransferWalker::Rebound(const std::string& key) const {
  for (const std::string& r : s_.rebound) {
    const std::string bare = r.substr(std::min(r.find_first_not_of("&*"), r.size()));
    const size_t at = key.find(bare);
    if (bare.empty() || at == std::string::npos || key.find_first_not_of("&*") != at) continue;
    const size_t end = at + bare.size();
    if (end == key.size() || key[end] == '.' || key[end] == '[') return true;
  }
  return false;
}

void TransferWalker::NoteRebound(const clang::Expr* written) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(written->IgnoreParenImpCasts());
  const auto* param = ref != nullptr ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  if (param == nullptr) return;
  const Symbol key = SymbolOf(ref, frame_.bindings, ast_);
  if (!key.empty()) s_.rebound.insert(key.key);
}

// The pointer by its name (`p`, `t.data_`, `this->data_`, a getter's
// member), so that a write to the name is seen. Not an element, an
// expression, or what a pointer points to.
bool IsQueryablePointer(const Symbol& pointer) {
  return !pointer.empty() && pointer.key.find_first_of("[(?") == std::string::npos && pointer.key[0] != '#' &&
         (pointer.key[0] != '*' || pointer.key.find('.') != std::string::npos);
}

std::optional<QueryValue> TransferWalker::PointerQueryOf(const clang::CallExpr* call) {
  const clang::FunctionDecl* fd = call->getDirectCallee();
  if (fd == nullptr || !IsProjectCode(fd, ast_)) return std::nullopt;
  std::optional<unsigned> param;
  std::string kind = "loc:";
  if (const clang::FunctionDecl* def = fd->getDefinition(); def != nullptr && def->hasBody()) {
    param = fa_.QueryParam(def);
  } else if (fa_.options_.summaries != nullptr) {
    auto it = fa_.options_.summaries->find(fa_.Usr(fd));
    if (it != fa_.options_.summaries->end() && it->second.query_param >= 0) param = it->second.query_param;
  } else if (fd->getNumParams() == 1 && fd->getParamDecl(0)->getType()->isPointerType() &&
             fd->getReturnType()->isIntegralOrEnumerationType()) {
    // Defined in another file, asked before the files' summaries are known:
    // a guard for this function's own summary, applied where it is known.
    param = 0;
    kind = "loc?:";
  }
  if (!param || *param >= call->getNumArgs()) return std::nullopt;
  const Symbol pointer = SymbolOf(call->getArg(*param), frame_.bindings, ast_);
  if (!IsQueryablePointer(pointer) || Rebound(pointer.key)) return std::nullopt;
  const std::string& usr = fa_.Usr(fd);
  if (usr.empty()) return std::nullopt;
  return QueryValue{kind + usr + "(" + pointer.key + ")", {pointer.key}};
}

void TransferWalker::Declare(const clang::VarDecl* v) {
  const Symbol self = SymbolOfDecl(v, frame_.bindings);
  ForgetFacts(s_, self.key);
  if (v->getType()->isArrayType() && !v->hasGlobalStorage()) {
    NoteAllocation(self.key, MemoryKind::kPageableHost, "a local array", v->getLocation());
  } else if (IsStdVector(v->getType())) {
    NoteAllocation(self.key, MemoryKind::kPageableHost, "std::vector", v->getLocation());
  }
  if (const clang::Expr* init = v->getInit()) {
    Visit(init, Use::kValue);
    GuardCaptures(v, self, init);
      // `Pipeline p(n);`: the constructor runs with `this` = &p.
    if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(init->IgnoreImplicit())) {
      if (const clang::FunctionDecl* ctor = Inlinable(construct->getConstructor())) {
        Inline(construct, ctor, std::vector<const clang::Expr*>(construct->arg_begin(), construct->arg_end()),
               Symbol{"&" + self.key, "&" + self.text});
      }
    }
    Bind(self.key, v->getType(), init, v->getLocation());
    if (v->hasLocalStorage() && HoldsKnownValue(self, v->getType())) {
      if (const std::optional<KnownValue> value = EvaluateKnown(init, Known())) s_.known_values[self.key] = *value;
    }
    // A reference to an array or container names it (the range of a range-for).
    const clang::QualType referred = v->getType().getNonReferenceType();
    if (v->getType()->isReferenceType() && (referred->isArrayType() || IsStdVector(referred))) {
      const BufferRef r = Buf(init);
      if (r.valid() && r.base.key != self.key) s_.aliases[self.key] = r;
    }
  }
}

void TransferWalker::Assign(const clang::BinaryOperator* b) {
  Visit(b->getRHS(), Use::kValue);
  const clang::Expr* lhs = b->getLHS()->IgnoreParenImpCasts();
  const auto* deref = llvm::dyn_cast<clang::UnaryOperator>(lhs);
  const bool named = llvm::isa<clang::DeclRefExpr>(lhs) || llvm::isa<clang::MemberExpr>(lhs);
  if (named || (deref != nullptr && deref->getOpcode() == clang::UO_Deref)) {
    const Symbol target = SymbolOf(lhs, frame_.bindings, ast_);
    // The value stored, read before the store (`x = x + 1`); `*flag = 1`
    // through a pointer the caller bound to `&flag` writes flag too.
    const std::optional<KnownValue> stored =
        b->isCompoundAssignmentOp() ? std::nullopt : EvaluateKnown(b->getRHS(), Known());
    if (named) NoteRebound(lhs);
    ForgetFacts(s_, target.key);
    if (named && !b->isCompoundAssignmentOp() && lhs->getType()->isPointerType()) Repoint(target.key);
    if (stored && HoldsKnownValue(target, lhs->getType()) && target.key[0] != '*') s_.known_values[target.key] = *stored;
  }
  // `*out = p` stores a pointer or handle through an out-parameter: a binding
  // of the caller's variable, not a host access to a buffer.
  const bool out_param = deref != nullptr && deref->getOpcode() == clang::UO_Deref &&
                         (lhs->getType()->isPointerType() || IsHandleType(lhs->getType()));
  if (!b->isCompoundAssignmentOp() &&
      (llvm::isa<clang::DeclRefExpr>(lhs) || llvm::isa<clang::MemberExpr>(lhs) || out_param)) {
    const Symbol key = SymbolOf(lhs, frame_.bindings, ast_);
    if (!key.empty()) {
      s_.values.erase(key.key);
      Bind(key.key, lhs->getType(), b->getRHS(), b->getBeginLoc());
    }
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(lhs)) Visit(m->getBase(), Use::kValue);
    if (out_param) Visit(deref->getSubExpr(), Use::kValue);
    return;
  }
  // `chunks[n] = p`: an element of an array of pointers gets a new pointer.
  // It is no longer freed, and neither is "any element" once one is refilled
  // (a loop freed them all; which are live again is not known). Storing
  // NULL after a free (`free(c[i]); c[i] = NULL;`) revives nothing.
  const bool element = llvm::isa<clang::ArraySubscriptExpr>(lhs) || llvm::isa<clang::CXXOperatorCallExpr>(lhs);
  const std::optional<int64_t> stored = ConstantOf(b->getRHS(), ast_);
  if (!b->isCompoundAssignmentOp() && element && lhs->getType()->isPointerType() && !IsHandleType(lhs->getType()) &&
      !(stored && *stored == 0)) {
    const Symbol key = SymbolOf(lhs, frame_.bindings, ast_);
    if (!key.empty()) {
      s_.freed.erase(key.key);
      s_.freed.erase(AnyElementKey(key.key));
      Bind(key.key, lhs->getType(), b->getRHS(), b->getBeginLoc());
    }
  }
  if ((b->getOpcode() == clang::BO_AddAssign || b->getOpcode() == clang::BO_SubAssign) &&
      lhs->getType()->isPointerType()) {
    Step(lhs, b->getOpcode() == clang::BO_AddAssign ? 1 : -1, b->getRHS());
    return;
  }
  Visit(b->getLHS(), b->isCompoundAssignmentOp() ? Use::kReadWrite : Use::kWrite);
}

// `auto guard = graph.capture_guard(stream);`: a capture the initializer's
// helper began and left open, in an object with a destructor of its own (one
// the walk does not follow), ends when the object dies: RAII.
void TransferWalker::GuardCaptures(const clang::VarDecl* v, const Symbol& self, const clang::Expr* init) {
  if (s_.capture_sites.empty()) return;
  const clang::CXXRecordDecl* record = v->getType()->getAsCXXRecordDecl();
  const auto* call = llvm::dyn_cast<clang::CallExpr>(StripTemporaries(init));
  if (call == nullptr || record == nullptr || !record->hasDefinition() || !record->hasNonTrivialDestructor()) return;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p/", static_cast<const void*>(call));
  const std::string inside = frame_.context + buf;  // the context of the helper the call ran (Inline)
  for (const auto& [origin, context] : s_.capture_sites) {
    if (context.compare(0, inside.size(), inside) == 0 && s_.capturing.count(origin) != 0) {
      s_.capture_guards[self.key] = origin;
    }
  }
}

void TransferWalker::EndOfScope(const clang::VarDecl* v, clang::SourceLocation loc) {
  if (!s_.capture_guards.empty()) {
    auto guard = s_.capture_guards.find(SymbolOfDecl(v, frame_.bindings).key);
    if (guard != s_.capture_guards.end()) {
      const std::string origin = guard->second;
      s_.capture_guards.erase(guard);
      EndCapture(origin, Symbol{});
    }
  }
  if (s_.pending.empty() || v->hasGlobalStorage()) return;
  if (!v->getType()->isArrayType() && !IsStdVector(v->getType())) return;
  BufferRef ref;
  ref.base = SymbolOfDecl(v, frame_.bindings);
  ref.offset_bytes = 0;
  if (s_.buffers.count(ref.base.key) == 0) return;
  if (IsStdVector(v->getType())) {
    auto alias = s_.aliases.find(ref.base.key);
    if (alias != s_.aliases.end() && alias->second.valid() && s_.buffers.count(alias->second.base.key) != 0) {
      ref = alias->second;
    }
  }
  if (s_.returned && s_.returned->ref.base.key == ref.base.key) return;  // moved out to the caller
  for (int id : s_.pending) {
    for (const BufferAccess& a : fa_.ops_[id].accesses) {
      if (a.ref.base.key != ref.base.key) continue;
      Free(ref, Symbol{}, kEndOfScope, loc);
      return;
    }
  }
}

}  // namespace streamcheck::lint
