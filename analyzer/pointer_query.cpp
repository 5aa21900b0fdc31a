#include "analyzer/pointer_query.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

#include <map>
#include <vector>

namespace streamcheck::lint {
namespace {

bool IsNamed(const clang::CallExpr* call, llvm::StringRef name) {
  const clang::FunctionDecl* fd = call->getDirectCallee();
  return fd != nullptr && fd->getIdentifier() != nullptr && fd->getName() == name;
}

// cudaGetLastError() or cudaPeekAtLastError(): the thread's error state,
// which other calls than the query set.
bool ReadsErrorState(const clang::Expr* e) {
  const auto* call = e != nullptr ? llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenImpCasts()) : nullptr;
  return call != nullptr && call->getNumArgs() == 0 &&
         (IsNamed(call, "cudaGetLastError") || IsNamed(call, "cudaPeekAtLastError"));
}

const clang::Stmt* StripCleanups(const clang::Stmt* s) {
  if (const auto* e = llvm::dyn_cast_or_null<clang::Expr>(s)) return e->IgnoreImplicit();
  return s;
}

// Whether control can leave `s` other than by falling through its end.
bool Jumps(const clang::Stmt* s) {
  if (s == nullptr) return false;
  if (llvm::isa<clang::ReturnStmt>(s) || llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::IndirectGotoStmt>(s) ||
      llvm::isa<clang::BreakStmt>(s) || llvm::isa<clang::ContinueStmt>(s) || llvm::isa<clang::CXXTryStmt>(s)) {
    return true;
  }
  for (const clang::Stmt* child : s->children()) {
    if (Jumps(child)) return true;
  }
  return false;
}

// A branch that never returns: a block ending in abort(), exit() or a throw,
// with no return, break or goto before it.
bool NeverReturns(const clang::Stmt* s) {
  s = StripCleanups(s);
  if (const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(s)) {
    return !block->body_empty() && !Jumps(block) && NeverReturns(block->body_back());
  }
  if (llvm::isa_and_nonnull<clang::CXXThrowExpr>(s)) return true;
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(s);
  const clang::FunctionDecl* fd = call != nullptr ? call->getDirectCallee() : nullptr;
  return fd != nullptr && fd->isNoReturn();
}

class QueryBody {
 public:
  QueryBody(const clang::FunctionDecl* def, const clang::ParmVarDecl* pointer)
      : def_(def), pointer_(pointer), sm_(def->getASTContext().getSourceManager()) {}

  bool Check(const clang::Stmt* body) {
    collecting_ = true;
    Walk(body, false);
    if (!ok_) return false;
    collecting_ = false;
    Walk(body, false);
    return ok_ && asks_;
  }

 private:
  bool Local(const clang::Expr* e) const {
    const auto* ref = e != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    const auto* var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    return var != nullptr && var != pointer_ && var->isLocalVarDecl() && !var->isStaticLocal() &&
           var->getDeclContext() == def_;
  }

  const clang::VarDecl* VarOf(const clang::Expr* e) const {
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  }

  bool Before(clang::SourceLocation a, clang::SourceLocation b) const {
    return sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(a), sm_.getExpansionLoc(b));
  }

  // `v = cudaGetLastError()`: from here on v holds the error state.
  void Stored(const clang::VarDecl* v, const clang::Expr* value, clang::SourceLocation at) {
    if (collecting_ && v != nullptr && ReadsErrorState(value)) error_state_[v].push_back(at);
  }

  void Fail() { ok_ = false; }

  // `test`: inside the test of a branch that never returns (an assertion).
  void Walk(const clang::Stmt* s, bool test) {
    if (s == nullptr || !ok_) return;
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::CXXForRangeStmt>(s) ||
        llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::IndirectGotoStmt>(s) || llvm::isa<clang::CXXThisExpr>(s) ||
        llvm::isa<clang::CXXTryStmt>(s) || llvm::isa<clang::SwitchStmt>(s) ||
        llvm::isa<clang::ArraySubscriptExpr>(s) || llvm::isa<clang::LambdaExpr>(s)) {
      return Fail();
    }
    if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(s)) {
      // `do { ... } while (0)` of a macro runs once.
      clang::Expr::EvalResult r;
      if (!loop->getCond()->EvaluateAsInt(r, def_->getASTContext()) || r.Val.getInt() != 0) return Fail();
      return Walk(loop->getBody(), false);
    }
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(s)) {
      if (branch->getInit() != nullptr || branch->getConditionVariable() != nullptr) return Fail();
      const bool then_fails = NeverReturns(branch->getThen());
      const bool else_fails = branch->getElse() == nullptr || NeverReturns(branch->getElse());
      Walk(branch->getCond(), then_fails && else_fails && branch->getElse() == nullptr);
      if (!then_fails) Walk(branch->getThen(), false);
      if (branch->getElse() != nullptr && !NeverReturns(branch->getElse())) Walk(branch->getElse(), false);
      return;
    }
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(s); block != nullptr && NeverReturns(block)) return;
    if (const auto* ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* d : ds->decls()) {
        const auto* v = llvm::dyn_cast<clang::VarDecl>(d);
        if (v == nullptr || !v->isLocalVarDecl() || v->isStaticLocal() || v->getType()->isReferenceType()) return Fail();
        if (ReadsErrorState(v->getInit())) {
          Stored(v, v->getInit(), v->getLocation());
          continue;
        }
        if (const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(v->getInit());
            construct != nullptr && construct->getNumArgs() == 0) {
          if (!construct->getConstructor()->isTrivial()) return Fail();
          continue;
        }
        Walk(v->getInit(), test);
      }
      return;
    }
    if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(s); bin != nullptr && bin->isAssignmentOp()) {
      if (test || !Local(bin->getLHS())) return Fail();
      if (ReadsErrorState(bin->getRHS())) return Stored(VarOf(bin->getLHS()), bin->getRHS(), bin->getOperatorLoc());
      if (bin->isCompoundAssignmentOp()) Walk(bin->getLHS(), test);
      return Walk(bin->getRHS(), test);
    }
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(s)) {
      if (u->getOpcode() == clang::UO_Deref || u->getOpcode() == clang::UO_AddrOf) return Fail();
      if (u->isIncrementDecrementOp() && (test || !Local(u->getSubExpr()))) return Fail();
    }
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(s); m != nullptr && (m->isArrow() || !Local(m->getBase()))) {
      return Fail();
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(s)) {
      // cudaPointerGetAttributes(&att, p): what CUDA knows of p's allocation.
      if (!test && IsNamed(call, "cudaPointerGetAttributes") && call->getNumArgs() == 2) {
        const auto* out = llvm::dyn_cast<clang::UnaryOperator>(call->getArg(0)->IgnoreParenImpCasts());
        if (out == nullptr || out->getOpcode() != clang::UO_AddrOf || !Local(out->getSubExpr()) ||
            VarOf(call->getArg(1)) != pointer_) {
          return Fail();
        }
        asks_ = true;
        return;
      }
      // The error state reset, its value dropped.
      if (!test && ReadsErrorState(call) && llvm::isa<clang::CompoundStmt>(parent_)) return;
      return Fail();
    }
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var == nullptr) return;  // an enumerator, a function named in a call
      if (var == pointer_) return;
      if (!Local(ref)) return Fail();
      if (collecting_ || test) return;
      auto it = error_state_.find(var);
      if (it == error_state_.end()) return;
      for (clang::SourceLocation at : it->second) {
        if (!Before(ref->getLocation(), at)) return Fail();
      }
      return;
    }
    const clang::Stmt* outer = parent_;
    parent_ = s;
    for (const clang::Stmt* child : s->children()) Walk(child, test);
    parent_ = outer;
  }

  const clang::FunctionDecl* def_;
  const clang::ParmVarDecl* pointer_;
  const clang::SourceManager& sm_;
  const clang::Stmt* parent_ = nullptr;
  bool collecting_ = false;
  bool ok_ = true;
  bool asks_ = false;
  std::map<const clang::VarDecl*, std::vector<clang::SourceLocation>> error_state_;
};

}  // namespace

std::optional<unsigned> PointerQueryParam(const clang::FunctionDecl* def) {
  if (def == nullptr || !def->hasBody() || def->getNumParams() != 1) return std::nullopt;
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(def); method != nullptr && method->isInstance()) {
    return std::nullopt;
  }
  const clang::QualType result = def->getReturnType();
  if (!result->isIntegralOrEnumerationType()) return std::nullopt;
  const clang::ParmVarDecl* pointer = def->getParamDecl(0);
  if (!pointer->getType()->isPointerType()) return std::nullopt;
  if (!QueryBody(def, pointer).Check(def->getBody())) return std::nullopt;
  return 0;
}

}  // namespace streamcheck::lint
