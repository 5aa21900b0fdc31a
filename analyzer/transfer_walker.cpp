// The statement walk of the transfer function: declarations, assignments,
// host reads and writes, and calls (a modeled CUDA API, a host clock, or a
// helper of the main file analysed in place). CUDA calls are handed to
// TransferWalker::Api (cuda_api_semantics.cpp).
#include "analyzer/transfer_walker.h"

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

bool IsStreamType(clang::QualType t) {
  const std::string name = t.getUnqualifiedType().getAsString();
  return name == "cudaStream_t" || name == "struct CUstream_st *" || name == "CUstream";
}

bool IsHandleType(clang::QualType t) {
  const std::string name = t.getUnqualifiedType().getAsString();
  return IsStreamType(t) || name == "cudaEvent_t" || name == "cudaGraph_t" || name == "cudaGraphExec_t";
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

clang::SourceLocation TransferWalker::Loc(clang::SourceLocation inner) const {
  return frame_.anchor.isValid() ? frame_.anchor : inner;
}

BufferRef TransferWalker::Buf(const clang::Expr* e) const {
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
      base.offset_bytes = base.offset_bytes && r.offset_bytes
                              ? std::optional<int64_t>(*base.offset_bytes + *r.offset_bytes)
                              : std::nullopt;
    }
    r = base;
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

void TransferWalker::NoteAllocation(const std::string& key, MemoryKind kind, const std::string& api,
                                    clang::SourceLocation loc) {
  s_.buffers[key] = BufferInfo{kind, api, Loc(loc)};
  s_.freed.erase(key);
  s_.aliases.erase(key);
}

// `p = malloc(n)`, `p = new T[n]`, `q = p + k`, `cfg.stream = s`.
void TransferWalker::Bind(const std::string& key, clang::QualType type, const clang::Expr* init,
                          clang::SourceLocation loc) {
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

void TransferWalker::Declare(const clang::VarDecl* v) {
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

void TransferWalker::Assign(const clang::BinaryOperator* b) {
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

void TransferWalker::Inline(const clang::CallExpr* call, const clang::FunctionDecl* fd) {
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

void TransferWalker::Call(const clang::CallExpr* call) {
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

}  // namespace streamcheck::lint
