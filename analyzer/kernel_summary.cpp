#include "analyzer/kernel_summary.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>

#include <set>

namespace streamcheck::lint {

namespace {

// Walks a function body top-down, carrying how the value of the current
// expression is used, and records for each pointer parameter how the memory
// it points to is accessed. Local pointers initialised from a parameter
// (`float* row = in + i * n`) are followed.
class ParamUseWalker {
 public:
  ParamUseWalker(const clang::FunctionDecl* fn, KernelSummaries& summaries)
      : summaries_(summaries), modes_(fn->getNumParams(), AccessMode::kRead), seen_(fn->getNumParams(), false) {
    for (unsigned i = 0; i < fn->getNumParams(); ++i) params_[fn->getParamDecl(i)] = static_cast<int>(i);
    if (fn->getBody() != nullptr) NoteAssigned(fn->getBody());
  }

  std::vector<AccessMode> Run(const clang::Stmt* body) {
    Visit(body, Use::kValue);
    return modes_;
  }
  // Parameters whose memory is touched only by atomic read-modify-writes.
  std::vector<bool> AtomicOnly() const {
    std::vector<bool> out(modes_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = atomic_[i] && !plain_[i];
    return out;
  }
  // Per parameter: the flag parameter every access to it lies under, or -1.
  std::vector<int> FlagGuards() const {
    std::vector<int> out(modes_.size(), -1);
    for (size_t i = 0; i < out.size(); ++i) {
      if (seen_[i] && !under_[i].empty()) out[i] = *under_[i].begin();
    }
    return out;
  }

 private:
  // How the value of an lvalue expression is used.
  enum class Use { kValue, kRead, kWrite, kReadWrite, kEscape };

  // The parameter a pointer expression is derived from, or -1.
  int ParamOf(const clang::Expr* e) const;
  void Record(int param, Use use);
  void Call(const clang::CallExpr* call);
  void Visit(const clang::Stmt* s, Use use);
  void Declare(const clang::DeclStmt* ds);
  // An assignment: whether it was handled (a store of a pointer, a write).
  void Assign(const clang::BinaryOperator* bin);
  // `*p`, `p[i]`, `p->f`: whether the access was to a parameter's memory.
  bool Dereference(const clang::Stmt* s, Use use);
  // Parameters assigned, incremented or whose address is taken: not flags.
  void NoteAssigned(const clang::Stmt* s);
  // `if (flag)` on a bool parameter never assigned: the parameter, or -1.
  int FlagOf(const clang::Expr* cond) const;

  KernelSummaries& summaries_;
  std::map<const clang::ValueDecl*, int> params_;
  std::map<const clang::ValueDecl*, int> aliases_;
  std::vector<AccessMode> modes_;
  std::vector<bool> seen_;
  bool in_atomic_ = false;
  std::vector<bool> atomic_ = std::vector<bool>(modes_.size(), false);
  std::vector<bool> plain_ = std::vector<bool>(modes_.size(), false);
  std::set<const clang::ValueDecl*> assigned_;
  std::set<int> flags_;                 // flags known true where the walk is
  std::vector<std::set<int>> under_ = std::vector<std::set<int>>(modes_.size());  // flags true at every access
};

void ParamUseWalker::NoteAssigned(const clang::Stmt* s) {
  if (s == nullptr) return;
  const clang::Expr* target = nullptr;
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(s); bin != nullptr && bin->isAssignmentOp()) {
    target = bin->getLHS();
  } else if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(s);
             u != nullptr && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf)) {
    target = u->getSubExpr();
  }
  if (target != nullptr) {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(target->IgnoreParenCasts())) assigned_.insert(ref->getDecl());
  }
  for (const clang::Stmt* child : s->children()) NoteAssigned(child);
}

int ParamUseWalker::FlagOf(const clang::Expr* cond) const {
  const auto* ref = cond != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(cond->IgnoreParenImpCasts()) : nullptr;
  if (ref == nullptr || !ref->getType()->isBooleanType() || assigned_.count(ref->getDecl()) != 0) return -1;
  auto it = params_.find(ref->getDecl());
  return it != params_.end() ? it->second : -1;
}

int ParamUseWalker::ParamOf(const clang::Expr* e) const {
  if (e == nullptr) return -1;
  e = e->IgnoreParenCasts();
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (auto it = params_.find(ref->getDecl()); it != params_.end()) return it->second;
    if (auto it = aliases_.find(ref->getDecl()); it != aliases_.end()) return it->second;
    return -1;
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bin->isAdditiveOp()) {
      const int l = ParamOf(bin->getLHS());
      return l >= 0 ? l : ParamOf(bin->getRHS());
    }
    return -1;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    const clang::Expr* inner = u->getSubExpr()->IgnoreParenCasts();
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) return ParamOf(sub->getBase());
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(inner); m != nullptr && m->isArrow()) {
      return ParamOf(m->getBase());
    }
  }
  if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    const int t = ParamOf(c->getTrueExpr());
    return t >= 0 ? t : ParamOf(c->getFalseExpr());
  }
  return -1;
}

void ParamUseWalker::Record(int param, Use use) {
  if (param < 0) return;
  AccessMode m = AccessMode::kRead;
  switch (use) {
    case Use::kValue:
    case Use::kRead: m = AccessMode::kRead; break;
    case Use::kWrite: m = AccessMode::kWrite; break;
    case Use::kReadWrite: m = AccessMode::kReadWrite; break;
    case Use::kEscape: m = AccessMode::kUnknown; break;
  }
  if (!seen_[param]) {
    under_[param] = flags_;
  } else {
    std::erase_if(under_[param], [&](int f) { return flags_.count(f) == 0; });
  }
  modes_[param] = seen_[param] ? MergeAccessModes(modes_[param], m) : m;
  seen_[param] = true;
  (in_atomic_ ? atomic_ : plain_)[param] = true;
}

// A pointer passed to a callee: the callee's summary says what happens to
// the memory; atomics read and write it; anything unknown escapes.
void ParamUseWalker::Call(const clang::CallExpr* call) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  const bool atomic = callee != nullptr && callee->getIdentifier() != nullptr &&
                      (callee->getName().starts_with("atomic") || callee->getName().starts_with("__atomic"));
  const std::vector<AccessMode>* callee_modes = nullptr;
  if (!atomic && callee != nullptr && callee->hasBody()) callee_modes = &summaries_.ParamModes(callee);
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    const int p = arg->getType()->isPointerType() ? ParamOf(arg) : -1;
    if (p < 0) {
      Visit(arg, Use::kValue);
    } else if (atomic) {
      in_atomic_ = true;
      Record(p, Use::kReadWrite);
      in_atomic_ = false;
    } else if (callee_modes != nullptr && i < callee_modes->size()) {
      const AccessMode m = (*callee_modes)[i];
      Record(p, m == AccessMode::kRead        ? Use::kRead
                : m == AccessMode::kWrite     ? Use::kWrite
                : m == AccessMode::kReadWrite ? Use::kReadWrite
                                              : Use::kEscape);
    } else {
      Record(p, arg->getType()->getPointeeType().isConstQualified() ? Use::kRead : Use::kEscape);
    }
  }
}

void ParamUseWalker::Declare(const clang::DeclStmt* ds) {
  for (const clang::Decl* d : ds->decls()) {
    const auto* v = llvm::dyn_cast<clang::VarDecl>(d);
    if (v == nullptr || v->getInit() == nullptr) continue;
    if (v->getType()->isPointerType()) {
      if (const int p = ParamOf(v->getInit()); p >= 0) {
        aliases_[v] = p;
        continue;
      }
    }
    // `float& x = out[i]` may be written through: treat as read and write.
    Visit(v->getInit(), v->getType()->isReferenceType() ? Use::kReadWrite : Use::kValue);
  }
}

void ParamUseWalker::Assign(const clang::BinaryOperator* bin) {
  // Storing a parameter-derived pointer somewhere we do not follow.
  if (bin->getRHS()->getType()->isPointerType()) {
    const clang::Expr* lhs = bin->getLHS()->IgnoreParenCasts();
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(lhs); ref != nullptr) {
      if (const int p = ParamOf(bin->getRHS()); p >= 0) {
        aliases_[ref->getDecl()] = p;
        return;
      }
    } else {
      Record(ParamOf(bin->getRHS()), Use::kEscape);
    }
  }
  Visit(bin->getLHS(), bin->isCompoundAssignmentOp() ? Use::kReadWrite : Use::kWrite);
  Visit(bin->getRHS(), Use::kValue);
}

bool ParamUseWalker::Dereference(const clang::Stmt* s, Use use) {
  const Use access = use == Use::kValue ? Use::kRead : use;
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(s); u != nullptr && u->getOpcode() == clang::UO_Deref) {
    Record(ParamOf(u->getSubExpr()), access);
    if (ParamOf(u->getSubExpr()) < 0) Visit(u->getSubExpr(), Use::kValue);
    return true;
  }
  if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
    const int p = ParamOf(sub->getBase());
    if (p >= 0) {
      Record(p, access);
    } else {
      Visit(sub->getBase(), Use::kValue);
    }
    Visit(sub->getIdx(), Use::kValue);
    return true;
  }
  if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(s); m != nullptr && m->isArrow()) {
    const int p = ParamOf(m->getBase());
    if (p >= 0) {
      Record(p, access);
      return true;
    }
  }
  return false;
}

void ParamUseWalker::Visit(const clang::Stmt* s, Use use) {
  if (s == nullptr) return;
  if (const auto* ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    Declare(ds);
    return;
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(s); bin != nullptr && bin->isAssignmentOp()) {
    Assign(bin);
    return;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(s)) {
    if (u->isIncrementDecrementOp()) {
      Visit(u->getSubExpr(), Use::kReadWrite);
      return;
    }
    // `&p[i]` as a value: a pointer, not an access.
    if (u->getOpcode() == clang::UO_AddrOf && ParamOf(u) >= 0) return;
  }
  if (Dereference(s, use)) return;
  if (const auto* ifs = llvm::dyn_cast<clang::IfStmt>(s)) {
    if (const int flag = FlagOf(ifs->getCond()); flag >= 0 && ifs->getInit() == nullptr && !ifs->isConsteval()) {
      const bool was = flags_.count(flag) != 0;
      flags_.insert(flag);
      Visit(ifs->getThen(), Use::kValue);
      if (!was) flags_.erase(flag);
      Visit(ifs->getElse(), Use::kValue);
      return;
    }
  }
  // `x[i] = v` of a struct (float2, cufftComplex): the class's operator=.
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(s); op != nullptr && op->isAssignmentOp()) {
    Visit(op->getArg(0), op->getOperator() == clang::OO_Equal ? Use::kWrite : Use::kReadWrite);
    for (unsigned i = 1; i < op->getNumArgs(); ++i) Visit(op->getArg(i), Use::kValue);
    return;
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(s); call != nullptr && !llvm::isa<clang::CXXOperatorCallExpr>(call)) {
    Call(call);
    return;
  }
  if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s);
      cast != nullptr && cast->getCastKind() == clang::CK_LValueToRValue) {
    Visit(cast->getSubExpr(), Use::kRead);
    return;
  }
  // A bare pointer parameter used as a value (compared, printed): no access.
  if (llvm::isa<clang::DeclRefExpr>(s)) return;
  // Parentheses and casts keep the use; everything else starts afresh.
  const bool transparent = llvm::isa<clang::ParenExpr>(s) || llvm::isa<clang::CastExpr>(s);
  for (const clang::Stmt* child : s->children()) Visit(child, transparent ? use : Use::kValue);
}

}  // namespace

const std::vector<AccessMode>& KernelSummaries::ParamModes(const clang::FunctionDecl* fn) {
  fn = fn->getDefinition() != nullptr ? fn->getDefinition() : fn;
  if (auto it = cache_.find(fn); it != cache_.end()) return it->second;
  std::vector<AccessMode> modes(fn->getNumParams(), AccessMode::kUnknown);
  // Recursion and very deep call chains: stay unknown.
  cache_[fn] = modes;
  const bool broken = compile_error_ && compile_error_(fn) != nullptr;
  if (fn->hasBody() && depth_ < 8 && !broken) {
    ++depth_;
    ParamUseWalker walker(fn, *this);
    modes = walker.Run(fn->getBody());
    atomic_only_[fn] = walker.AtomicOnly();
    flag_guards_[fn] = walker.FlagGuards();
    --depth_;
  } else {
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      const clang::QualType t = fn->getParamDecl(i)->getType();
      if (!t->isPointerType()) {
        modes[i] = AccessMode::kRead;
      } else if (t->getPointeeType().isConstQualified()) {
        modes[i] = AccessMode::kRead;
      }
    }
  }
  // Non-pointer parameters are copied at launch; a pointer never dereferenced is not accessed.
  for (unsigned i = 0; i < fn->getNumParams(); ++i) {
    if (!fn->getParamDecl(i)->getType()->isPointerType()) modes[i] = AccessMode::kRead;
  }
  return cache_[fn] = modes;
}

const std::vector<bool>& KernelSummaries::AtomicOnly(const clang::FunctionDecl* fn) {
  ParamModes(fn);
  fn = fn->getDefinition() != nullptr ? fn->getDefinition() : fn;
  std::vector<bool>& out = atomic_only_[fn];
  out.resize(fn->getNumParams(), false);
  return out;
}

const std::vector<int>& KernelSummaries::FlagGuards(const clang::FunctionDecl* fn) {
  ParamModes(fn);
  fn = fn->getDefinition() != nullptr ? fn->getDefinition() : fn;
  std::vector<int>& out = flag_guards_[fn];
  out.resize(fn->getNumParams(), -1);
  return out;
}

}  // namespace streamcheck::lint
