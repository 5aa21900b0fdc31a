// The fixpoint over one function's CFG (FunctionAnalyzer::RunCfg): blocks
// grouped into loops and ordered topologically, each edge's state (a branch
// the call site decides, a successful cudaStreamQuery/cudaEventQuery, the exit
// of a counted loop), and the transfer of each block by TransferWalker.
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Analysis/CFG.h>

#include <set>

#include "analyzer/function_analyzer.h"
#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {
namespace {



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

// A block that returns an error status: a nonzero enumerator or constant
// from a function returning an enum (cudaError_t, ncclResult_t, a test's own
// result type: their success is 0), or `false` from one returning bool.
bool ReturnsError(const clang::CFGBlock& b, const clang::FunctionDecl* fn, const clang::ASTContext& ast) {
  const clang::QualType type = fn->getReturnType();
  if (!type->isEnumeralType() && !type->isBooleanType()) return false;
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    std::optional<clang::CFGStmt> s = it->getAs<clang::CFGStmt>();
    if (!s) continue;
    const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(s->getStmt());
    const std::optional<int64_t> value = ret != nullptr ? ConstantOf(ret->getRetValue(), ast) : std::nullopt;
    if (!value) return false;
    return type->isBooleanType() ? *value == 0 : *value != 0;
  }
  return false;
}

// The variables a block changes (`remaining--`, `done[i] = 1`).
void ChangedIn(const clang::CFGBlock& b, std::set<const clang::VarDecl*>* out) {
  const auto var_of = [](const clang::Expr* e) -> const clang::VarDecl* {
    e = e->IgnoreParenImpCasts();
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) e = sub->getBase()->IgnoreParenImpCasts();
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
    return ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  };
  for (const clang::CFGElement& e : b) {
    std::optional<clang::CFGStmt> s = e.getAs<clang::CFGStmt>();
    if (!s) continue;
    const clang::VarDecl* v = nullptr;
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(s->getStmt()); u != nullptr && u->isIncrementDecrementOp()) {
      v = var_of(u->getSubExpr());
    } else if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(s->getStmt()); bin != nullptr && bin->isAssignmentOp()) {
      v = var_of(bin->getLHS());
    }
    if (v != nullptr) out->insert(v);
  }
}

// The query call a loop's blocks assign to the variable `tested` names
// (`err = cudaStreamQuery(s)`), or nullptr.
const clang::CallExpr* QueryAssignedIn(const std::vector<const clang::CFGBlock*>& blocks, const clang::Expr* tested) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(tested->IgnoreParenCasts());
  const clang::ValueDecl* var = ref != nullptr ? ref->getDecl() : nullptr;
  if (var == nullptr) return nullptr;
  for (const clang::CFGBlock* b : blocks) {
    for (const clang::CFGElement& e : *b) {
      std::optional<clang::CFGStmt> s = e.getAs<clang::CFGStmt>();
      if (!s) continue;
      if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(s->getStmt()); bin != nullptr && bin->isAssignmentOp()) {
        const auto* lhs = llvm::dyn_cast<clang::DeclRefExpr>(bin->getLHS()->IgnoreParenCasts());
        if (lhs != nullptr && lhs->getDecl() == var) {
          if (const clang::CallExpr* q = QueryCall(bin->getRHS())) return q;
        }
      } else if (const auto* ds = llvm::dyn_cast<clang::DeclStmt>(s->getStmt()); ds != nullptr && ds->isSingleDecl()) {
        const auto* v = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
        if (v == var && v->getInit() != nullptr) {
          if (const clang::CallExpr* q = QueryCall(v->getInit())) return q;
        }
      }
    }
  }
  return nullptr;
}

// Whether `stmt` names one of `vars`.
bool Mentions(const clang::Stmt* stmt, const std::set<const clang::VarDecl*>& vars) {
  if (stmt == nullptr) return false;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(stmt)) {
    const auto* v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    return v != nullptr && vars.count(v) != 0;
  }
  for (const clang::Stmt* child : stmt->children()) {
    if (Mentions(child, vars)) return true;
  }
  return false;
}

// A block that ends in a `throw` (the CFG keeps it as the last element).
bool EndsInThrow(const clang::CFGBlock& b) {
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    if (std::optional<clang::CFGStmt> s = it->getAs<clang::CFGStmt>()) return llvm::isa<clang::CXXThrowExpr>(s->getStmt());
  }
  return false;
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
  CfgRun(FunctionAnalyzer& fa, const clang::FunctionDecl* fn, const clang::CFG& cfg, const FlowState& entry,
         const Frame& frame)
      : fa_(fa), fn_(fn), cfg_(cfg), entry_(entry), frame_(frame), order_(OrderCfg(cfg)),
        out_(cfg.getNumBlockIDs()), after_iteration_(cfg.getNumBlockIDs()), last_in_(cfg.getNumBlockIDs()),
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
    reads_left_ = readers_left_;
    FindPollingLoops();
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

  // The state along an edge; `last` (TakeLastRead): no later block reads the
  // predecessor's state, so it is moved, not copied.
  FlowState EdgeState(const clang::CFGBlock* pred, const clang::CFGBlock* succ, bool last = false) {
    const bool loop_exit = CountedLoop(pred) != nullptr && *(pred->succ_begin() + 1) == succ &&
                           after_iteration_[pred->getBlockID()].reached;
    FlowState& slot = loop_exit ? after_iteration_[pred->getBlockID()] : out_[pred->getBlockID()];
    FlowState st = last ? std::move(slot) : slot;
    if (!st.reached) return st;
    LeavePollingLoop(pred, succ, st);
    const auto* cond = llvm::dyn_cast_or_null<clang::Expr>(pred->getTerminatorCondition());
    if (pred->succ_size() != 2) return st;
    const bool edge_true = *pred->succ_begin() == succ;
    // A test the bindings (a helper's flag or out-parameter as its call site
    // gives it) or the values this path knows decide goes one way only.
    const KnownScope scope{frame_.bindings, fa_.ast_, st.known_values, st.aliases};
    if (const std::optional<bool> known = KnownTruth(cond, scope); known && *known != edge_true) return FlowState{};
    if (const std::optional<bool> given = fa_.entry_points_.TestOfBoundPointer(cond, fa_.ast_);
        given && *given != edge_true) {
      return FlowState{};
    }
    LearnFromCondition(cond, edge_true, scope, &st.known_values);
    if (!TakeCondition(cond, edge_true, st)) return FlowState{};
    // The left operand of `a && b` found false (of `a || b` true) decides the
    // whole condition too: a helper's `if (a && b) return;` and its caller's
    // `if (a && b) sync();` then meet on one key (nccl-tests' completeColl).
    if (const auto* op = llvm::dyn_cast_or_null<clang::BinaryOperator>(pred->getTerminatorStmt());
        op != nullptr && op->isLogicalOp() && edge_true == (op->getOpcode() == clang::BO_LOr)) {
      if (!TakeCondition(op, edge_true, st)) return FlowState{};
    }
    const QueryTest test = QueryBranch(cond, fa_.ast_);
    if (test.tested == nullptr) return st;
    // The first successor is taken when the condition is true.
    QuerySucceeded(st, test, *pred->succ_begin() == succ, frame_.bindings, fa_.ast_,
                   fa_.options_.per_thread_default_stream, fa_.ops_);
    return st;
  }

  // The branch on `cond` takes its `value` edge: false when this path has
  // already found the other value (and nothing it reads was written since);
  // else the path remembers it.
  bool TakeCondition(const clang::Expr* cond, bool value, FlowState& st) const {
    std::vector<std::string> vars;
    std::optional<std::string> key = ConditionKey(cond, frame_.bindings, fa_.ast_, &vars, &st.query_values);
    if (!key || vars.empty()) return true;
    // `!c` taking its true edge is `c` taking its false one.
    while (key->size() > 1 && (*key)[0] == '!') {
      key->erase(0, 1);
      value = !value;
    }
    auto it = st.facts.find(*key);
    if (it != st.facts.end()) return it->second.value == value;
    st.facts[*key] = FlowState::Fact{value, std::move(vars)};
    // Ops pending only had the condition gone the other way are done.
    if (auto other = st.guarded.find(GuardKey(*key, !value)); other != st.guarded.end()) {
      Complete(st, other->second.ops);
      st.events_host_complete.insert(other->second.events.begin(), other->second.events.end());
      if (st.since_clock) st.since_clock->erase(other->second.timed);
      st.guarded.erase(other);
    }
    st.guarded.erase(GuardKey(*key, value));
    return true;
  }

  // A loop that polls a query and counts its successes (`cudaErr =
  // cudaStreamQuery(streams[i]); if (cudaErr == cudaSuccess) { done[i] = 1;
  // remaining--; }` in `while (remaining)`, nccl-tests' stream wait): the
  // variables its success branch changes, and the test, per loop.
  struct Poll {
    int component = -1;
    QueryTest test;
    bool success_on_true = false;  // the success branch is the true successor
    std::set<const clang::VarDecl*> changed;
  };

  void FindPollingLoops() {
    for (size_t c = 0; c < order_.components.size(); ++c) {
      if (!order_.cyclic[c]) continue;
      for (const clang::CFGBlock* b : order_.components[c]) {
        const auto* cond = llvm::dyn_cast_or_null<clang::Expr>(b->getTerminatorCondition());
        if (b->succ_size() != 2 || cond == nullptr) continue;
        const QueryTest test = QueryBranch(cond, fa_.ast_);
        if (test.tested == nullptr) continue;
        // The successor the success takes: the condition's truth says an error when truth_is_error.
        const bool on_true = test.truth_is_error == test.negated;
        const clang::CFGBlock* success = *(b->succ_begin() + (on_true ? 0 : 1));
        if (success == nullptr || order_.component_of[success->getBlockID()] != static_cast<int>(c)) continue;
        Poll poll{static_cast<int>(c), test, on_true, {}};
        // Tested through a variable: the query the loop assigns it.
        if (QueryCall(test.tested) == nullptr) poll.test.tested = QueryAssignedIn(order_.components[c], test.tested);
        ChangedIn(*success, &poll.changed);
        if (poll.test.tested != nullptr && !poll.changed.empty()) polls_.push_back(std::move(poll));
      }
    }
  }

  // Leaving a polling loop on a condition over what its success branch
  // changes: the loop has seen the query succeed.
  void LeavePollingLoop(const clang::CFGBlock* pred, const clang::CFGBlock* succ, FlowState& st) const {
    if (polls_.empty() || succ == nullptr) return;
    const int from = order_.component_of[pred->getBlockID()];
    if (from == order_.component_of[succ->getBlockID()]) return;
    for (const Poll& poll : polls_) {
      if (poll.component != from || !Mentions(pred->getTerminatorCondition(), poll.changed)) continue;
      QuerySucceeded(st, poll.test, poll.success_on_true, frame_.bindings, fa_.ast_,
                     fa_.options_.per_thread_default_stream, fa_.ops_);
    }
  }

  // Whether the function returns other than with an error status.
  bool HasNormalReturn() const {
    const clang::CFGBlock& exit = cfg_.getExit();
    for (auto it = exit.pred_begin(); it != exit.pred_end(); ++it) {
      const clang::CFGBlock* p = it->getReachableBlock();
      if (p != nullptr && !p->hasNoReturnElement() && !EndsInThrow(*p) && !ReturnsError(*p, fn_, fa_.ast_)) return true;
    }
    return false;
  }

  // Whether this read of `pred`'s state, by a block outside loops (read
  // once), is the last of the reads from other components that
  // ReleaseRead counts: a block read by a loop is read again each pass, and
  // never counts down here.
  bool TakeLastRead(const clang::CFGBlock* pred, const clang::CFGBlock* b) {
    const int c = order_.component_of[b->getBlockID()];
    if (c < 0 || order_.cyclic[c] || order_.component_of[pred->getBlockID()] == c) return false;
    return --reads_left_[pred->getBlockID()] == 0;
  }

  FlowState InState(const clang::CFGBlock* b) {
    FlowState in;
    if (b == &cfg_.getEntry()) {
      in = entry_;
      in.reached = true;
    }
    const bool exit = b == &cfg_.getExit();
    const bool error_paths_apart = exit && HasNormalReturn();
    for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
      const clang::CFGBlock* p = it->getReachableBlock();
      if (p == nullptr || order_.component_of[p->getBlockID()] < 0) continue;
      // A path through exit() or abort(), or a throw (a CHECK macro's), never
      // returns to the caller; one that returns an error status (a nonzero
      // enumerator, `false`) is the caller's to check and leave: the state
      // after a helper is that of its successful returns.
      if (exit && (p->hasNoReturnElement() || EndsInThrow(*p))) continue;
      if (error_paths_apart && ReturnsError(*p, fn_, fa_.ast_)) continue;
      FlowState edge = EdgeState(p, b, TakeLastRead(p, b));
      // The first reached edge is the state itself, moved rather than copied by Join.
      if (!in.reached) {
        in = std::move(edge);
      } else if (edge.reached) {
        in = Join(std::move(in), edge);
      }
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
        // The same state in as at the last pass gives the same state out
        // (a transfer that does not report has no other effect): a loop's
        // blocks that settled cost a comparison, not their helpers' inlining.
        FlowState& seen = last_in_[b->getBlockID()];
        if (pass > 0 && in == seen && !CountedLoop(b)) continue;
        seen = in;
        settle(out_[b->getBlockID()], Transfer(b, std::move(in), false));
        if (const clang::ForStmt* loop = CountedLoop(b)) {
          FlowState back;
          for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
            const clang::CFGBlock* p = it->getReachableBlock();
            if (p != nullptr && p->getLoopTarget() == loop) back = Join(std::move(back), EdgeState(p, b));
          }
          settle(after_iteration_[b->getBlockID()], back.reached ? Transfer(b, std::move(back), false) : FlowState{});
        }
      }
      if (!changed) break;
      if (widen) fa_.budget_.widened = true;
    }
    for (const clang::CFGBlock* b : component) last_in_[b->getBlockID()] = FlowState{};
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
  const clang::FunctionDecl* fn_;
  const clang::CFG& cfg_;
  const FlowState& entry_;
  const Frame& frame_;
  const CfgOrder order_;
  std::vector<FlowState> out_;
  std::vector<FlowState> after_iteration_;
  std::vector<FlowState> last_in_;  // SolveLoop: each block's state in at the last pass
  std::vector<int> readers_left_;
  std::vector<int> reads_left_;  // TakeLastRead's count of the same reads
  std::vector<Poll> polls_;
};

// Solves the CFG component by component in topological order: a block outside
// loops is transferred once, with its final input, and reports as it goes; a
// loop is iterated to a fixpoint, then walked once more to report.
FlowState FunctionAnalyzer::RunCfg(const clang::FunctionDecl* fn, const FlowState& entry, const Frame& frame,
                                   bool report) {
  clang::CFG* cfg = CfgOf(fn);
  if (cfg == nullptr) return entry;
  return CfgRun(*this, fn, *cfg, entry, frame).Solve(report);
}

}  // namespace streamcheck::lint
