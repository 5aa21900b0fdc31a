// The fixpoint over one function's CFG (FunctionAnalyzer::RunCfg): blocks
// grouped into loops and ordered topologically, each edge's state (a branch
// the call site decides, a successful cudaStreamQuery/cudaEventQuery, the exit
// of a counted loop), and the transfer of each block by TransferWalker.
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Analysis/CFG.h>

#include <set>

#include "analyzer/function_analyzer.h"
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


// The reachable blocks of a CFG grouped into strongly connected components
// (loops), in an order where every component comes after those with edges
// into it, and the blocks of each component in reverse post-order.
struct CfgOrder {
  std::vector<std::vector<const clang::CFGBlock*>> components;
  std::vector<int> component_of;  // by block id; -1: unreachable
  std::vector<int> rpo;           // by block id
  std::vector<bool> cyclic;       // by component: a loop (or a block jumping to itself)
};

CfgOrder OrderCfg(const clang::CFG& cfg) {
  const unsigned n = cfg.getNumBlockIDs();
  CfgOrder order;
  order.component_of.assign(n, -1);
  order.rpo.assign(n, -1);
  // Reverse post-order by an iterative depth-first walk.
  std::vector<const clang::CFGBlock*> post;
  std::vector<char> seen(n, 0);
  std::vector<std::pair<const clang::CFGBlock*, clang::CFGBlock::const_succ_iterator>> stack;
  const clang::CFGBlock* entry = &cfg.getEntry();
  seen[entry->getBlockID()] = 1;
  stack.push_back({entry, entry->succ_begin()});
  while (!stack.empty()) {
    auto& [b, it] = stack.back();
    if (it == b->succ_end()) {
      post.push_back(b);
      stack.pop_back();
      continue;
    }
    const clang::CFGBlock* next = it->getReachableBlock();
    ++it;
    if (next != nullptr && !seen[next->getBlockID()]) {
      seen[next->getBlockID()] = 1;
      stack.push_back({next, next->succ_begin()});
    }
  }
  for (size_t i = 0; i < post.size(); ++i) order.rpo[post[post.size() - 1 - i]->getBlockID()] = static_cast<int>(i);
  // Tarjan's components (iteratively), found in reverse topological order.
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<const clang::CFGBlock*> scc_stack;
  int counter = 0;
  for (const clang::CFGBlock* root : post) {
    if (index[root->getBlockID()] >= 0) continue;
    std::vector<std::pair<const clang::CFGBlock*, clang::CFGBlock::const_succ_iterator>> work;
    const auto open = [&](const clang::CFGBlock* b) {
      index[b->getBlockID()] = low[b->getBlockID()] = counter++;
      scc_stack.push_back(b);
      on_stack[b->getBlockID()] = 1;
      work.push_back({b, b->succ_begin()});
    };
    open(root);
    while (!work.empty()) {
      auto& [b, it] = work.back();
      const unsigned id = b->getBlockID();
      if (it != b->succ_end()) {
        const clang::CFGBlock* next = it->getReachableBlock();
        ++it;
        if (next == nullptr) continue;
        if (index[next->getBlockID()] < 0) {
          open(next);
        } else if (on_stack[next->getBlockID()]) {
          low[id] = std::min(low[id], index[next->getBlockID()]);
        }
        continue;
      }
      if (low[id] == index[id]) {
        std::vector<const clang::CFGBlock*> component;
        const clang::CFGBlock* x = nullptr;
        do {
          x = scc_stack.back();
          scc_stack.pop_back();
          on_stack[x->getBlockID()] = 0;
          component.push_back(x);
        } while (x != b);
        order.components.push_back(std::move(component));
      }
      work.pop_back();
      if (!work.empty()) {
        const unsigned parent = work.back().first->getBlockID();
        low[parent] = std::min(low[parent], low[id]);
      }
    }
  }
  std::reverse(order.components.begin(), order.components.end());
  for (size_t c = 0; c < order.components.size(); ++c) {
    auto& component = order.components[c];
    std::sort(component.begin(), component.end(), [&](const clang::CFGBlock* a, const clang::CFGBlock* b) {
      return order.rpo[a->getBlockID()] < order.rpo[b->getBlockID()];
    });
    bool cyclic = component.size() > 1;
    for (const clang::CFGBlock* b : component) {
      order.component_of[b->getBlockID()] = static_cast<int>(c);
      for (auto it = b->succ_begin(); it != b->succ_end(); ++it) cyclic = cyclic || it->getReachableBlock() == b;
    }
    order.cyclic.push_back(cyclic);
  }
  return order;
}

}  // namespace

// One solve of a CFG: the out-state of every block, and of every counted
// loop's head after an iteration. A `for` loop over a counter (`for (int i =
// 0; i < n; ++i)`) is taken to run at least once: its exit carries the state
// after an iteration, not the state of skipping the loop. Loops over one array
// of streams or events (create, launch, synchronize, wait) share their count,
// so a count of zero would have launched nothing to race with.
class FunctionAnalyzer::CfgRun {
 public:
  CfgRun(FunctionAnalyzer& fa, const clang::CFG& cfg, const FlowState& entry, const Frame& frame)
      : fa_(fa), cfg_(cfg), entry_(entry), frame_(frame), order_(OrderCfg(cfg)),
        out_(cfg.getNumBlockIDs()), after_iteration_(cfg.getNumBlockIDs()),
        readers_left_(cfg.getNumBlockIDs(), 0) {
    // Blocks read by a later component: a state can go once they are all done.
    for (const auto& component : order_.components) {
      for (const clang::CFGBlock* b : component) {
        for (auto it = b->succ_begin(); it != b->succ_end(); ++it) {
          const clang::CFGBlock* s = it->getReachableBlock();
          if (s != nullptr && order_.component_of[s->getBlockID()] != order_.component_of[b->getBlockID()]) {
            ++readers_left_[b->getBlockID()];
          }
        }
      }
    }
  }

  FlowState Solve(bool report) {
    for (size_t c = 0; c < order_.components.size(); ++c) {
      const auto& component = order_.components[c];
      if (!order_.cyclic[c]) {
        const clang::CFGBlock* b = component.front();
        FlowState in = InState(b);
        if (in.reached) out_[b->getBlockID()] = Transfer(b, std::move(in), report);
      } else {
        SolveLoop(component, report);
      }
      ReleaseRead(component, static_cast<int>(c));
    }
    const FlowState& exit = out_[cfg_.getExit().getBlockID()];
    return exit.reached ? exit : entry_;
  }

 private:
  const clang::ForStmt* CountedLoop(const clang::CFGBlock* b) const {
    const auto* loop = llvm::dyn_cast_or_null<clang::ForStmt>(b->getTerminatorStmt());
    const auto* init = loop != nullptr ? llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit()) : nullptr;
    if (init == nullptr || !init->isSingleDecl() || b->succ_size() != 2) return nullptr;
    const auto* counter = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
    return counter != nullptr && fa_.loop_counters_.count(counter) != 0 ? loop : nullptr;
  }

  FlowState EdgeState(const clang::CFGBlock* pred, const clang::CFGBlock* succ) const {
    const bool loop_exit = CountedLoop(pred) != nullptr && *(pred->succ_begin() + 1) == succ &&
                           after_iteration_[pred->getBlockID()].reached;
    FlowState st = loop_exit ? after_iteration_[pred->getBlockID()] : out_[pred->getBlockID()];
    if (!st.reached) return st;
    const auto* cond = llvm::dyn_cast_or_null<clang::Expr>(pred->getTerminatorCondition());
    if (pred->succ_size() == 2) {
      if (const std::optional<bool> known = KnownCondition(cond, frame_.bindings, fa_.ast_)) {
        const clang::CFGBlock* never = *(pred->succ_begin() + (*known ? 1 : 0));
        if (never == succ) return FlowState{};
      }
    }
    if (pred->succ_size() != 2) return st;
    const QueryTest test = QueryBranch(cond, fa_.ast_);
    if (test.tested == nullptr) return st;
    // The first successor is taken when the condition is true.
    QuerySucceeded(st, test, *pred->succ_begin() == succ, frame_.bindings, fa_.ast_,
                   fa_.options_.per_thread_default_stream, fa_.ops_);
    return st;
  }

  FlowState InState(const clang::CFGBlock* b) const {
    FlowState in;
    if (b == &cfg_.getEntry()) {
      in = entry_;
      in.reached = true;
    }
    const bool exit = b == &cfg_.getExit();
    for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
      const clang::CFGBlock* p = it->getReachableBlock();
      if (p == nullptr || order_.component_of[p->getBlockID()] < 0) continue;
      // A path through exit() or abort() (a CHECK macro's) never returns to
      // the caller: the state after a helper is that of its returns.
      if (exit && p->hasNoReturnElement()) continue;
      in = Join(in, EdgeState(p, b));
    }
    return in;
  }

  FlowState Transfer(const clang::CFGBlock* b, FlowState st, bool report) {
    ++fa_.budget_.transfers;
    std::set<const clang::Stmt*> done;
    for (const clang::CFGElement& e : *b) {
      if (std::optional<clang::CFGStmt> cs = e.getAs<clang::CFGStmt>()) {
        TransferWalker(fa_, st, frame_, report, done).Visit(cs->getStmt(), Use::kValue);
      } else if (std::optional<clang::CFGLifetimeEnds> end = e.getAs<clang::CFGLifetimeEnds>()) {
        const clang::Stmt* trigger = end->getTriggerStmt();
        const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(trigger);
        const clang::SourceLocation at = block != nullptr ? block->getRBracLoc()
                                         : trigger != nullptr ? trigger->getBeginLoc()
                                                              : clang::SourceLocation();
        TransferWalker(fa_, st, frame_, report, done).EndOfScope(end->getVarDecl(), at);
      }
    }
    return st;
  }

  // A loop: passes in reverse post-order until nothing changes. Past the
  // bound each new state is joined into the old one (a widening: the states
  // only grow, so it settles), at some cost in precision. Then one more pass
  // reports.
  void SolveLoop(const std::vector<const clang::CFGBlock*>& component, bool report) {
    for (int pass = 0;; ++pass) {
      const bool widen = pass >= fa_.options_.max_loop_passes;
      bool changed = false;
      const auto settle = [&](FlowState& slot, FlowState next) {
        if (widen && slot.reached) next = Join(slot, next);
        if (next == slot) return;
        slot = std::move(next);
        changed = true;
      };
      for (const clang::CFGBlock* b : component) {
        FlowState in = InState(b);
        if (!in.reached) continue;
        settle(out_[b->getBlockID()], Transfer(b, std::move(in), false));
        if (const clang::ForStmt* loop = CountedLoop(b)) {
          FlowState back;
          for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
            const clang::CFGBlock* p = it->getReachableBlock();
            if (p != nullptr && p->getLoopTarget() == loop) back = Join(back, EdgeState(p, b));
          }
          settle(after_iteration_[b->getBlockID()], back.reached ? Transfer(b, std::move(back), false) : FlowState{});
        }
      }
      if (!changed) break;
      if (widen) fa_.budget_.widened = true;
    }
    if (!report) return;
    for (const clang::CFGBlock* b : component) {
      FlowState in = InState(b);
      if (in.reached) Transfer(b, std::move(in), true);
    }
  }

  // Drops the states no block left to solve reads, so memory follows the
  // CFG's frontier, not its size.
  void ReleaseRead(const std::vector<const clang::CFGBlock*>& component, int c) {
    const auto release = [&](unsigned id) {
      if (id == cfg_.getExit().getBlockID()) return;
      out_[id] = FlowState{};
      after_iteration_[id] = FlowState{};
    };
    for (const clang::CFGBlock* b : component) {
      if (readers_left_[b->getBlockID()] == 0) release(b->getBlockID());
      for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
        const clang::CFGBlock* p = it->getReachableBlock();
        if (p == nullptr || order_.component_of[p->getBlockID()] < 0 || order_.component_of[p->getBlockID()] == c) {
          continue;
        }
        if (--readers_left_[p->getBlockID()] == 0) release(p->getBlockID());
      }
    }
  }

  FunctionAnalyzer& fa_;
  const clang::CFG& cfg_;
  const FlowState& entry_;
  const Frame& frame_;
  const CfgOrder order_;
  std::vector<FlowState> out_;
  std::vector<FlowState> after_iteration_;
  std::vector<int> readers_left_;
};

// Solves the CFG component by component in topological order: a block outside
// loops is transferred once, with its final input, and reports as it goes; a
// loop is iterated to a fixpoint, then walked once more to report.
FlowState FunctionAnalyzer::RunCfg(const clang::FunctionDecl* fn, const FlowState& entry, const Frame& frame,
                                   bool report) {
  clang::CFG* cfg = CfgOf(fn);
  if (cfg == nullptr) return entry;
  return CfgRun(*this, *cfg, entry, frame).Solve(report);
}

}  // namespace streamcheck::lint
