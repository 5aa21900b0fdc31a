#include "analyzer/host_loops.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

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

bool IsLoop(const clang::Stmt* s) {
  return llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s) ||
         llvm::isa<clang::CXXForRangeStmt>(s);
}

clang::DynTypedNode ParentOf(const clang::DynTypedNode& node, clang::ASTContext& ast) {
  const clang::DynTypedNodeList parents = ast.getParents(node);
  return parents.empty() ? clang::DynTypedNode() : parents[0];
}

class GotoFinder : public clang::RecursiveASTVisitor<GotoFinder> {
 public:
  bool VisitGotoStmt(clang::GotoStmt*) { return !(found = true); }
  bool VisitIndirectGotoStmt(clang::IndirectGotoStmt*) { return !(found = true); }
  bool found = false;
};

// Whether `var` may change inside `s`: any use of it but reading its value.
class ChangeFinder : public clang::RecursiveASTVisitor<ChangeFinder> {
 public:
  explicit ChangeFinder(const clang::VarDecl* var) : var_(var) {}
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* cast) {
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(cast->getSubExpr()->IgnoreParens());
    const bool read =
        cast->getCastKind() == clang::CK_LValueToRValue || cast->getCastKind() == clang::CK_ArrayToPointerDecay;
    if (read && ref != nullptr && ref->getDecl() == var_) ++reads_;
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (ref->getDecl() == var_) ++uses_;
    return true;
  }
  bool Changed() const { return uses_ != reads_; }

 private:
  const clang::VarDecl* var_;
  int uses_ = 0, reads_ = 0;
};

bool ChangesIn(const clang::VarDecl* var, const clang::Stmt* s) {
  if (s == nullptr) return false;
  ChangeFinder f(var);
  f.TraverseStmt(const_cast<clang::Stmt*>(s));
  return f.Changed();
}

// Whether a variable is declared inside `body` (a fresh one each iteration).
bool DeclaredIn(const clang::VarDecl* var, const clang::Stmt* body, clang::ASTContext& ast) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*var);
  for (int i = 0; i < 64; ++i) {
    node = ParentOf(node, ast);
    const auto* s = node.get<clang::Stmt>();
    if (s == nullptr) return false;
    if (s == body) return true;
  }
  return false;
}

// The loop of a counter (`for (int i = 0; ...; ++i)` or `i += k`) and its step.
struct CountedLoop {
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* counter = nullptr;
  int64_t step = 0;
};

std::optional<CountedLoop> CounterOf(const clang::ForStmt* loop, const clang::ASTContext& ast) {
  const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
  if (init == nullptr || !init->isSingleDecl()) return std::nullopt;
  const auto* var = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
  if (var == nullptr || !var->getType()->isIntegerType() || var->getInit() == nullptr ||
      !ConstantOf(var->getInit(), ast) || !StepsUp(loop->getInc(), var, ast)) {
    return std::nullopt;
  }
  int64_t step = 1;
  if (const auto* b = llvm::dyn_cast<clang::CompoundAssignOperator>(loop->getInc()->IgnoreParenImpCasts())) {
    step = *ConstantOf(b->getRHS(), ast);
  }
  return CountedLoop{loop, var, step};
}

// An integer as `per_counter * counter + constant`.
struct Affine {
  int64_t per_counter = 0;
  int64_t constant = 0;
};

std::optional<Affine> AffineOf(const clang::Expr* e, const CountedLoop& l, clang::ASTContext& ast, int depth) {
  if (e == nullptr || depth > 8) return std::nullopt;
  if (const std::optional<int64_t> c = ConstantOf(e, ast)) return Affine{0, *c};
  e = e->IgnoreParenCasts();  // `(size_t)i * chunk`
  if (const clang::VarDecl* var = VarOf(e)) {
    if (var == l.counter) return Affine{1, 0};
    // `const size_t off = i * chunk;` (or not const, never changed) in the body.
    if (var->getType()->isIntegerType() && var->getInit() != nullptr && DeclaredIn(var, l.loop->getBody(), ast) &&
        !ChangesIn(var, l.loop->getBody())) {
      return AffineOf(var->getInit(), l, ast, depth + 1);
    }
    return std::nullopt;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    std::optional<Affine> a = AffineOf(u->getSubExpr(), l, ast, depth + 1);
    if (!a || (u->getOpcode() != clang::UO_Minus && u->getOpcode() != clang::UO_Plus)) return std::nullopt;
    if (u->getOpcode() == clang::UO_Minus) *a = Affine{-a->per_counter, -a->constant};
    return a;
  }
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (b == nullptr) return std::nullopt;
  const std::optional<Affine> x = AffineOf(b->getLHS(), l, ast, depth + 1);
  const std::optional<Affine> y = AffineOf(b->getRHS(), l, ast, depth + 1);
  if (!x || !y) return std::nullopt;
  Affine r;
  bool overflow = false;
  switch (b->getOpcode()) {
    case clang::BO_Add:
      overflow = __builtin_add_overflow(x->per_counter, y->per_counter, &r.per_counter) ||
                 __builtin_add_overflow(x->constant, y->constant, &r.constant);
      break;
    case clang::BO_Sub:
      overflow = __builtin_sub_overflow(x->per_counter, y->per_counter, &r.per_counter) ||
                 __builtin_sub_overflow(x->constant, y->constant, &r.constant);
      break;
    case clang::BO_Mul: {
      if (x->per_counter != 0 && y->per_counter != 0) return std::nullopt;  // i * i
      const Affine& v = x->per_counter != 0 ? *x : *y;
      const int64_t k = x->per_counter != 0 ? y->constant : x->constant;
      overflow = __builtin_mul_overflow(v.per_counter, k, &r.per_counter) ||
                 __builtin_mul_overflow(v.constant, k, &r.constant);
      break;
    }
    default: return std::nullopt;
  }
  return overflow ? std::nullopt : std::optional<Affine>(r);
}

std::optional<int64_t> PointeeBytes(clang::QualType pointer, const clang::ASTContext& ast) {
  if (!pointer->isPointerType() && !pointer->isArrayType()) return std::nullopt;
  const clang::QualType t = pointer->getPointeeOrArrayElementType()->getCanonicalTypeUnqualified();
  if (t.isNull() || t->isIncompleteType() || t->isVoidType() || t->isDependentType()) return std::nullopt;
  return ast.getTypeSizeInChars(t).getQuantity();
}

// A pointer as a variable the loop leaves alone plus an offset in bytes.
bool PointerOf(const clang::Expr* e, const CountedLoop& l, clang::ASTContext& ast, int depth,
               const clang::VarDecl** root, Affine* bytes) {
  if (e == nullptr || depth > 8) return false;
  e = e->IgnoreParenCasts();  // a pointer cast keeps the address
  if (const clang::VarDecl* var = VarOf(e)) {
    if (!var->getType()->isPointerType() && !var->getType()->isArrayType()) return false;
    if (DeclaredIn(var, l.loop->getBody(), ast)) {
      // `float* p = d + i * chunk;` in the body: p is that each iteration.
      return var->getInit() != nullptr && !ChangesIn(var, l.loop->getBody()) &&
             PointerOf(var->getInit(), l, ast, depth + 1, root, bytes);
    }
    // A local or parameter the loop does not change (a global could be
    // changed by any call in it).
    if (var == l.counter || !var->hasLocalStorage() || ChangesIn(var, l.loop)) return false;
    *root = var;
    *bytes = Affine{};
    return true;
  }
  const std::optional<PointerSplit> split = SplitPointer(e);
  if (!split) return false;
  const std::optional<int64_t> element = PointeeBytes(split->base->getType(), ast);
  const int sign = split->minus ? -1 : 1;
  if (!element) return false;
  const std::optional<Affine> i = AffineOf(split->index, l, ast, depth + 1);
  if (!i || !PointerOf(split->base, l, ast, depth + 1, root, bytes)) return false;
  int64_t per = 0, c = 0;
  if (__builtin_mul_overflow(i->per_counter, sign * *element, &per) ||
      __builtin_mul_overflow(i->constant, sign * *element, &c) ||
      __builtin_add_overflow(bytes->per_counter, per, &bytes->per_counter) ||
      __builtin_add_overflow(bytes->constant, c, &bytes->constant)) {
    return false;
  }
  return true;
}

// Whether `s` reads the loop's counter, directly or through variables
// declared in the body from it (`Shard t = tensor_at(model, i);`).
bool ReadsCounter(const clang::Stmt* s, const CountedLoop& l, clang::ASTContext& ast, int hops) {
  if (s == nullptr) return false;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (var == nullptr) return false;
    if (var == l.counter) return true;
    return hops < 8 && var->getInit() != nullptr && DeclaredIn(var, l.loop->getBody(), ast) &&
           ReadsCounter(var->getInit(), l, ast, hops + 1);
  }
  for (const clang::Stmt* child : s->children()) {
    if (ReadsCounter(child, l, ast, hops)) return true;
  }
  return false;
}

// Whether a pointer's offset moves with the loop's counter by an amount
// AffineOf cannot tell (UnknownStrides), through pointers declared in the body.
bool MovesByUnknown(const clang::Expr* e, const CountedLoop& l, clang::ASTContext& ast, int depth) {
  if (e == nullptr || depth > 8) return false;
  e = e->IgnoreParenCasts();
  if (const clang::VarDecl* var = VarOf(e)) {
    return var->getType()->isPointerType() && var->getInit() != nullptr &&
           DeclaredIn(var, l.loop->getBody(), ast) && !ChangesIn(var, l.loop->getBody()) &&
           MovesByUnknown(var->getInit(), l, ast, depth + 1);
  }
  const std::optional<PointerSplit> split = SplitPointer(e);
  if (!split) return false;
  if (!AffineOf(split->index, l, ast, depth + 1) && ReadsCounter(split->index, l, ast, 0)) return true;
  return MovesByUnknown(split->base, l, ast, depth + 1);
}

// A `for` loop around an expression, and where in its body the expression is.
struct LoopPlace {
  const clang::ForStmt* loop = nullptr;
  const clang::Stmt* statement = nullptr;   // the statement of the body that holds it
  const clang::Stmt* inner_loop = nullptr;  // a loop inside the body that repeats it, if any
};

// The `for` loops around `e` up to its function (or a lambda or block around
// it), innermost first.
std::vector<LoopPlace> LoopsAround(const clang::Expr* e, clang::ASTContext& ast) {
  std::vector<LoopPlace> out;
  clang::DynTypedNode node = clang::DynTypedNode::create(*e);
  const clang::Stmt* below = e;  // the child of `node` on the way up
  // The statement the expression is in, the innermost one a block lists:
  // in one iteration such statements run in the order they are written.
  const clang::Stmt* statement = nullptr;
  const clang::Stmt* inner_loop = nullptr;
  for (int depth = 0; depth < 256; ++depth) {
    node = ParentOf(node, ast);
    const auto* s = node.get<clang::Stmt>();
    if (s == nullptr) {
      if (node.get<clang::VarDecl>() != nullptr) continue;  // `float* p = ...;` on the way to its DeclStmt
      return out;
    }
    if (llvm::isa<clang::LambdaExpr>(s) || llvm::isa<clang::BlockExpr>(s)) return out;
    if (llvm::isa<clang::CompoundStmt>(s) && statement == nullptr) statement = below;
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(s); loop != nullptr && loop->getBody() == below) {
      out.push_back(LoopPlace{loop, statement != nullptr ? statement : below, inner_loop});
    }
    if (IsLoop(s)) {
      // Repeats the expression within one iteration of a loop further out.
      inner_loop = s;
      statement = nullptr;
    }
    below = s;
  }
  return out;
}

LoopStride StrideAt(const LoopPlace& place, const clang::ASTContext& ast) {
  const clang::SourceManager& sm = ast.getSourceManager();
  LoopStride r;
  r.loop = place.loop;
  r.statement = place.statement;
  r.statement_offset = sm.getFileOffset(sm.getExpansionLoc(place.statement->getBeginLoc()));
  r.inner_loop = place.inner_loop;
  return r;
}

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

std::optional<PointerSplit> SplitPointer(const clang::Expr* e) {
  if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e);
      b != nullptr && (b->getOpcode() == clang::BO_Add || b->getOpcode() == clang::BO_Sub)) {
    const clang::Expr* base = b->getLHS();
    const clang::Expr* index = b->getRHS();
    if (!base->getType()->isPointerType()) std::swap(base, index);
    if (!base->getType()->isPointerType() || !index->getType()->isIntegerType()) return std::nullopt;
    return PointerSplit{base, index, b->getOpcode() == clang::BO_Sub};
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    if (sub == nullptr || !sub->getBase()->getType()->isPointerType()) return std::nullopt;
    return PointerSplit{sub->getBase(), sub->getIdx(), false};
  }
  return std::nullopt;
}

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

std::optional<LoopStride> StrideAcrossIterations(const clang::Expr* pointer, clang::ASTContext& ast) {
  if (pointer == nullptr) return std::nullopt;
  for (const LoopPlace& place : LoopsAround(pointer, ast)) {
    const std::optional<CountedLoop> counted = CounterOf(place.loop, ast);
    const clang::VarDecl* root = nullptr;
    Affine bytes;
    if (!counted || !PointerOf(pointer, *counted, ast, 0, &root, &bytes) || bytes.per_counter <= 0) continue;
    int64_t step = 0, first = 0;
    const int64_t start = *ConstantOf(counted->counter->getInit(), ast);
    if (__builtin_mul_overflow(bytes.per_counter, counted->step, &step) ||
        __builtin_mul_overflow(bytes.per_counter, start, &first) ||
        __builtin_add_overflow(first, bytes.constant, &first) || ChangesIn(counted->counter, place.loop->getBody()) ||
        ChangesIn(counted->counter, place.loop->getCond()) || MayRunAgain(place.loop, ast)) {
      return std::nullopt;
    }
    LoopStride r = StrideAt(place, ast);
    r.root = root;
    r.first_bytes = first;
    r.step_bytes = step;
    return r;
  }
  return std::nullopt;
}

std::vector<LoopStride> UnknownStrides(const clang::Expr* pointer, clang::ASTContext& ast) {
  std::vector<LoopStride> out;
  if (pointer == nullptr) return out;
  for (const LoopPlace& place : LoopsAround(pointer, ast)) {
    const std::optional<CountedLoop> counted = CounterOf(place.loop, ast);
    if (counted && MovesByUnknown(pointer, *counted, ast, 0)) out.push_back(StrideAt(place, ast));
  }
  return out;
}

bool MayRunAgain(const clang::Stmt* s, clang::ASTContext& ast) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*s);
  for (int depth = 0; depth < 256; ++depth) {
    node = ParentOf(node, ast);
    if (const auto* p = node.get<clang::Stmt>()) {
      if (IsLoop(p) || llvm::isa<clang::LambdaExpr>(p) || llvm::isa<clang::BlockExpr>(p)) return true;
      continue;
    }
    if (node.get<clang::VarDecl>() != nullptr) continue;
    const auto* fn = node.get<clang::FunctionDecl>();
    if (fn == nullptr || !fn->hasBody()) return true;
    GotoFinder gotos;
    gotos.TraverseStmt(fn->getBody());
    return gotos.found;
  }
  return true;
}

const HostAlgorithm* FindHostAlgorithm(std::string_view qualified_name, unsigned num_args) {
  for (const HostAlgorithm& a : kAlgorithms) {
    if (a.name == qualified_name && (a.args < 0 || static_cast<unsigned>(a.args) == num_args)) return &a;
  }
  return nullptr;
}

}  // namespace streamcheck::lint
