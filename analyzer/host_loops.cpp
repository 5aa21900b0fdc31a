#include "analyzer/host_loops.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>

#include "analyzer/symbolic.h"

namespace streamcheck::lint {
namespace {

const clang::VarDecl* VarOf(const clang::Expr* e) {
  const auto* ref = e != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
  return ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
}

// `++i`, `i++`, `i += k` with k > 0: the loop walks upward from its start.
bool StepsUp(const clang::Expr* inc, const clang::VarDecl* var, const clang::ASTContext& ast) {
  if (inc == nullptr) return false;
  inc = inc->IgnoreParenImpCasts();
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(inc)) {
    return u->isIncrementOp() && VarOf(u->getSubExpr()) == var;
  }
  if (const auto* b = llvm::dyn_cast<clang::CompoundAssignOperator>(inc)) {
    const std::optional<int64_t> step = ConstantOf(b->getRHS(), ast);
    return b->getOpcode() == clang::BO_AddAssign && VarOf(b->getLHS()) == var && step && *step > 0;
  }
  return false;
}

class CounterCollector : public clang::RecursiveASTVisitor<CounterCollector> {
 public:
  CounterCollector(const clang::ASTContext& ast, LoopCounters* counters) : ast_(ast), counters_(counters) {}
  bool VisitForStmt(clang::ForStmt* loop) {
    const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
    if (init == nullptr || !init->isSingleDecl()) return true;
    const auto* var = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
    if (var == nullptr || !var->getType()->isIntegerType() || var->getInit() == nullptr) return true;
    const std::optional<int64_t> start = ConstantOf(var->getInit(), ast_);
    if (start && StepsUp(loop->getInc(), var, ast_)) (*counters_)[var] = *start;
    return true;
  }
  // Lambdas are not analysed; their loops do not matter.
  bool TraverseLambdaExpr(clang::LambdaExpr*) { return true; }

 private:
  const clang::ASTContext& ast_;
  LoopCounters* counters_;
};

// clang-format off
// name, read, read2, write, args (-1: any)
constexpr HostAlgorithm kAlgorithms[] = {
  {"std::accumulate", 0}, {"std::reduce", 0}, {"std::count", 0}, {"std::count_if", 0},
  {"std::find", 0}, {"std::find_if", 0}, {"std::find_if_not", 0}, {"std::all_of", 0},
  {"std::any_of", 0}, {"std::none_of", 0}, {"std::min_element", 0}, {"std::max_element", 0},
  {"std::minmax_element", 0}, {"std::is_sorted", 0}, {"std::adjacent_find", 0},
  {"std::lower_bound", 0}, {"std::upper_bound", 0}, {"std::binary_search", 0}, {"std::equal_range", 0},
  {"std::equal", 0, 2}, {"std::mismatch", 0, 2}, {"std::inner_product", 0, 2},
  {"std::transform_reduce", 0, 2},
  {"std::copy", 0, -1, 2}, {"std::copy_n", 0, -1, 2}, {"std::copy_if", 0, -1, 2},
  {"std::copy_backward", 0, -1, 2}, {"std::move", 0, -1, 2, 3}, {"std::partial_sum", 0, -1, 2},
  {"std::adjacent_difference", 0, -1, 2}, {"std::exclusive_scan", 0, -1, 2}, {"std::inclusive_scan", 0, -1, 2},
  {"std::transform", 0, -1, 2, 4}, {"std::transform", 0, 2, 3, 5},
  {"std::fill", -1, -1, 0}, {"std::fill_n", -1, -1, 0}, {"std::generate", -1, -1, 0},
  {"std::generate_n", -1, -1, 0}, {"std::iota", -1, -1, 0}, {"std::uninitialized_fill", -1, -1, 0},
  // In place: read and written.
  {"std::sort", 0, -1, 0}, {"std::stable_sort", 0, -1, 0}, {"std::partial_sort", 0, -1, 0},
  {"std::nth_element", 0, -1, 0}, {"std::reverse", 0, -1, 0}, {"std::rotate", 0, -1, 0},
  {"std::unique", 0, -1, 0}, {"std::remove", 0, -1, 0}, {"std::remove_if", 0, -1, 0},
  {"std::replace", 0, -1, 0}, {"std::replace_if", 0, -1, 0}, {"std::shuffle", 0, -1, 0},
  {"std::for_each", 0, -1, 0}, {"std::for_each_n", 0, -1, 0},
};
// clang-format on

}  // namespace

void CollectLoopCounters(const clang::Stmt* body, const clang::ASTContext& ast, LoopCounters* counters) {
  CounterCollector(ast, counters).TraverseStmt(const_cast<clang::Stmt*>(body));
}

std::optional<int64_t> FirstIterationValue(const clang::Expr* index, const LoopCounters& counters,
                                           const clang::ASTContext& ast) {
  if (index == nullptr) return std::nullopt;
  if (std::optional<int64_t> c = ConstantOf(index, ast)) return c;
  index = index->IgnoreParenCasts();  // `size_t(i) * chunk` too
  if (const clang::VarDecl* var = VarOf(index)) {
    auto it = counters.find(var);
    if (it != counters.end()) return it->second;
    // `const size_t off = i * chunk;` in the loop: its value on the first iteration.
    if (var->getType().isConstQualified() && var->hasLocalStorage() && var->getInit() != nullptr) {
      return FirstIterationValue(var->getInit(), counters, ast);
    }
    return std::nullopt;
  }
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(index);
  if (b == nullptr) return std::nullopt;
  const std::optional<int64_t> l = FirstIterationValue(b->getLHS(), counters, ast);
  const std::optional<int64_t> r = FirstIterationValue(b->getRHS(), counters, ast);
  switch (b->getOpcode()) {
    case clang::BO_Add: return l && r ? std::optional<int64_t>(*l + *r) : std::nullopt;
    case clang::BO_Sub: return l && r ? std::optional<int64_t>(*l - *r) : std::nullopt;
    case clang::BO_Mul:
      // Zero times anything: `i * n` on the first iteration of i from 0.
      if ((l && *l == 0) || (r && *r == 0)) return 0;
      return l && r ? std::optional<int64_t>(*l * *r) : std::nullopt;
    default: return std::nullopt;
  }
}

const HostAlgorithm* FindHostAlgorithm(std::string_view qualified_name, unsigned num_args) {
  for (const HostAlgorithm& a : kAlgorithms) {
    if (a.name == qualified_name && (a.args < 0 || static_cast<unsigned>(a.args) == num_args)) return &a;
  }
  return nullptr;
}

}  // namespace streamcheck::lint
