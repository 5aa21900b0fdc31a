#include "analyzer/function_analyzer.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Analysis/CFG.h>

#include <set>

#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {
namespace {

enum class Nullness { kNull, kNonNull };

// A pointer bound to `&x` (a helper's parameter given the address of the
// caller's variable) is never null; one bound to a null constant always is.
std::optional<Nullness> NullnessOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ast) {
  if (!e->getType()->isPointerType() && !e->getType()->isNullPtrType()) return std::nullopt;
  const Symbol sym = SymbolOf(e, b, ast);
  if (sym.key == "#0") return Nullness::kNull;
  if (sym.key.rfind("&", 0) == 0) return Nullness::kNonNull;
  return std::nullopt;
}

// The value of a branch condition when the bindings decide it: the
// optional out-parameter of a helper (`if (out != NULL) *out = p;`) taken or
// not at each call site.
std::optional<bool> KnownCondition(const clang::Expr* cond, const Bindings& b, const clang::ASTContext& ast) {
  if (cond == nullptr) return std::nullopt;
  cond = cond->IgnoreParens();
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(cond); u != nullptr && u->getOpcode() == clang::UO_LNot) {
    const std::optional<bool> inner = KnownCondition(u->getSubExpr(), b, ast);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(cond);
      bin != nullptr && (bin->getOpcode() == clang::BO_EQ || bin->getOpcode() == clang::BO_NE)) {
    const std::optional<Nullness> l = NullnessOf(bin->getLHS(), b, ast);
    const std::optional<Nullness> r = NullnessOf(bin->getRHS(), b, ast);
    if (!l || !r || (*l == Nullness::kNonNull && *r == Nullness::kNonNull)) return std::nullopt;
    return (*l == *r) == (bin->getOpcode() == clang::BO_EQ);
  }
  const clang::Expr* value = cond->IgnoreImpCasts();
  if (const std::optional<Nullness> n = NullnessOf(value, b, ast)) return *n == Nullness::kNonNull;
  // A flag parameter bound to a constant at the call (`compute(&st, d, n, true)`).
  if (!value->getType()->isPointerType()) {
    if (const std::optional<int64_t> v = ValueOf(value, b, ast)) return *v != 0;
  }
  return std::nullopt;
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
  CollectLoopCounters(fn->getBody(), ast_, &loop_counters_);
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
  // A `for` loop over a counter (`for (int i = 0; i < n; ++i)`) is taken to
  // run at least once: its exit carries the state after an iteration, not the
  // state of skipping the loop. Loops over one array of streams or events
  // (create, launch, synchronize, wait) share their count, so a count of zero
  // would have launched nothing to race with.
  std::vector<FlowState> after_iteration(n);
  const auto counted_loop = [&](const clang::CFGBlock* b) -> const clang::ForStmt* {
    const auto* loop = llvm::dyn_cast_or_null<clang::ForStmt>(b->getTerminatorStmt());
    const auto* init = loop != nullptr ? llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit()) : nullptr;
    if (init == nullptr || !init->isSingleDecl() || b->succ_size() != 2) return nullptr;
    const auto* counter = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
    return counter != nullptr && loop_counters_.count(counter) != 0 ? loop : nullptr;
  };

  const auto edge_state = [&](const clang::CFGBlock* pred, const clang::CFGBlock* succ) {
    const bool loop_exit = counted_loop(pred) != nullptr && *(pred->succ_begin() + 1) == succ &&
                           after_iteration[pred->getBlockID()].reached;
    FlowState st = loop_exit ? after_iteration[pred->getBlockID()] : out[pred->getBlockID()];
    if (!st.reached) return st;
    const auto* cond = llvm::dyn_cast_or_null<clang::Expr>(pred->getTerminatorCondition());
    if (pred->succ_size() == 2) {
      if (const std::optional<bool> known = KnownCondition(cond, frame.bindings, ast_)) {
        const clang::CFGBlock* never = *(pred->succ_begin() + (*known ? 1 : 0));
        if (never == succ) return FlowState{};
      }
    }
    int success_succ = -1;
    const clang::CallExpr* q = QueryBranch(cond, ast_, &success_succ);
    if (q == nullptr || success_succ < 0 || pred->succ_size() != 2) return st;
    const clang::CFGBlock* taken = *(pred->succ_begin() + success_succ);
    if (taken != succ) return st;
    // The query returned cudaSuccess on this edge: the host has seen the work finish.
    QuerySucceeded(st, q, frame.bindings, ast_, options_.per_thread_default_stream, ops_);
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
      if (const clang::ForStmt* loop = counted_loop(b)) {
        FlowState back;
        for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
          const clang::CFGBlock* p = it->getReachableBlock();
          if (p != nullptr && p->getLoopTarget() == loop) back = Join(back, edge_state(p, b));
        }
        FlowState iterated = back.reached ? transfer(b, std::move(back), false) : FlowState{};
        if (!(iterated == after_iteration[id])) {
          after_iteration[id] = std::move(iterated);
          changed = true;
        }
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
  top.bindings.counters = &loop_counters_;
  FlowState entry;
  entry.reached = true;
  RunCfg(fn, entry, top, true);
}

}  // namespace streamcheck::lint
