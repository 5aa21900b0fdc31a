#include "analyzer/kernel_index_params.h"

#include <map>
#include <set>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace streamcheck::lint {
namespace {

using ParamSet = std::set<unsigned>;

// The scalar parameters each local's value is computed from, to a fixpoint
// (a local assigned in a loop from another).
class Flow : public clang::RecursiveASTVisitor<Flow> {
 public:
  explicit Flow(const clang::FunctionDecl* fn) : fn_(fn) {
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      if (!fn->getParamDecl(i)->getType()->isPointerType()) from_[fn->getParamDecl(i)] = {i};
    }
  }

  ParamSet Reads(const clang::Stmt* s) const {
    ParamSet out;
    if (s == nullptr) return out;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      if (auto it = from_.find(ref->getDecl()); it != from_.end()) out = it->second;
      return out;
    }
    for (const clang::Stmt* child : s->children()) {
      const ParamSet c = Reads(child);
      out.insert(c.begin(), c.end());
    }
    return out;
  }

  bool VisitVarDecl(clang::VarDecl* v) {
    if (!llvm::isa<clang::ParmVarDecl>(v) && v->getInit() != nullptr) Add(v, Reads(v->getInit()));
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (!b->isAssignmentOp()) return true;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts())) {
      if (!llvm::isa<clang::ParmVarDecl>(ref->getDecl())) Add(ref->getDecl(), Reads(b->getRHS()));
    }
    return true;
  }

  bool changed = false;

 private:
  void Add(const clang::ValueDecl* d, const ParamSet& params) {
    ParamSet& have = from_[d];
    const size_t before = have.size();
    have.insert(params.begin(), params.end());
    changed |= have.size() != before;
  }

  const clang::FunctionDecl* fn_;
  std::map<const clang::ValueDecl*, ParamSet> from_;
};

// The pointer parameter an expression names, if any.
const clang::ParmVarDecl* PointerParam(const clang::Expr* e) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* p = ref != nullptr ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  return p != nullptr && p->getType()->isPointerType() ? p : nullptr;
}

class Uses : public clang::RecursiveASTVisitor<Uses> {
 public:
  Uses(const clang::FunctionDecl* fn, const Flow& flow)
      : flow_(flow), indexing_(fn->getNumParams()), passed_(fn->getNumParams(), false) {}

  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    Index(e->getBase(), e->getIdx());
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->isAdditiveOp()) {
      Index(b->getLHS(), b->getRHS());
      Index(b->getRHS(), b->getLHS());
    }
    return true;
  }

  // A pointer passed whole to a call is used as the callee says: not known here.
  bool VisitCallExpr(clang::CallExpr* c) {
    for (const clang::Expr* a : c->arguments()) {
      if (const clang::ParmVarDecl* p = PointerParam(a)) passed_[p->getFunctionScopeIndex()] = true;
    }
    return true;
  }

  std::vector<std::vector<unsigned>> Result() const {
    std::vector<std::vector<unsigned>> out(indexing_.size());
    for (size_t i = 0; i < indexing_.size(); ++i) {
      if (!passed_[i]) out[i].assign(indexing_[i].begin(), indexing_[i].end());
    }
    return out;
  }

 private:
  void Index(const clang::Expr* base, const clang::Expr* index) {
    const clang::ParmVarDecl* p = PointerParam(base);
    if (p == nullptr) return;
    const ParamSet reads = flow_.Reads(index);
    indexing_[p->getFunctionScopeIndex()].insert(reads.begin(), reads.end());
  }

  const Flow& flow_;
  std::vector<ParamSet> indexing_;
  std::vector<bool> passed_;
};

}  // namespace

std::vector<std::vector<unsigned>> ScalarParamsIndexing(const clang::FunctionDecl* kernel) {
  const clang::FunctionDecl* fn = kernel->getDefinition() != nullptr ? kernel->getDefinition() : kernel;
  if (!fn->hasBody()) return std::vector<std::vector<unsigned>>(fn->getNumParams());
  Flow flow(fn);
  for (int pass = 0; pass < 4; ++pass) {
    flow.changed = false;
    flow.TraverseStmt(fn->getBody());
    if (!flow.changed) break;
  }
  Uses uses(fn, flow);
  uses.TraverseStmt(fn->getBody());
  return uses.Result();
}

}  // namespace streamcheck::lint
