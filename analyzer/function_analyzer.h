// Runs the stream model over one host function's CFG to a fixpoint, then
// walks it once more and hands each event (async op, host access, free,
// event wait, clock read) to the checks with the state before it. Calls to
// helpers defined in the same translation unit are analysed in place with
// their parameters bound to the caller's arguments (a summary per call site),
// so a bug across a helper boundary is reported at the call.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/driver_entry_points.h"
#include "analyzer/function_summary.h"
#include "analyzer/host_loops.h"
#include "analyzer/kernel_summary.h"
#include "analyzer/lint_check.h"
#include "analyzer/stream_state.h"

namespace clang {
class ASTContext;
class CFG;
class FunctionDecl;
}  // namespace clang

namespace streamcheck::lint {

struct AnalyzerOptions {
  bool per_thread_default_stream = false;  // nvcc --default-stream per-thread
  int max_inline_depth = 3;
  // The first compile error in a function's code (nullptr: none). Such a
  // function is never analysed, not even as a helper (lint_driver.cpp).
  std::function<const std::string*(const clang::FunctionDecl*)> compile_error;
  // Functions of other files (function_summary.h), applied where this one calls them.
  const SummaryTable* summaries = nullptr;
  // Filled with the USRs of the functions of other files this one calls.
  std::set<std::string>* external_calls = nullptr;

  // The budget of one analysed function (helpers followed into included).
  // Past each bound the analysis goes on with less precision, and says so
  // (FunctionAnalyzer::budget_notes).
  size_t max_pending = 1024;        // ops pending at once; the oldest beyond are forgotten
  int max_findings = 1000;          // findings reported; the rest are counted
  int max_loop_passes = 12;         // fixpoint passes over a loop before widening
  long max_transfers = 200000;      // block transfers before helpers are no longer followed
};

// A function whose analysis reached its budget: where, and what was given up.
struct BudgetNote {
  const clang::FunctionDecl* function = nullptr;
  std::string message;
};

// The USR of a function: its name across translation units ("" if none).
std::string UsrOf(const clang::FunctionDecl* fn);

class FunctionAnalyzer {
 public:
  FunctionAnalyzer(clang::ASTContext& ast, const std::vector<std::unique_ptr<LintCheck>>& checks,
                   CheckContext& ctx, OpTable& ops, const AnalyzerOptions& options);
  ~FunctionAnalyzer();
  void Analyze(const clang::FunctionDecl* fn);
  // What calling `fn` does, for its callers in other files (function_summary.cpp);
  // nothing when it neither waits for nor queues work on what it is given.
  std::optional<FunctionSummary> Summarize(const clang::FunctionDecl* fn);
  // CUDA runtime calls and launches met so far: a function with none has an empty summary.
  int cuda_calls() const { return cuda_calls_; }
  const std::string& Usr(const clang::FunctionDecl* fn);
  // PointerQueryParam (pointer_query.h), kept per function.
  std::optional<unsigned> QueryParam(const clang::FunctionDecl* def);
  // StrideAcrossIterations and UnknownStrides (host_loops.h), kept per
  // expression: they walk the AST up from it, and a loop's passes and a
  // helper's every inlining ask again.
  const std::optional<LoopStride>& StrideOf(const clang::Expr* pointer);
  const std::vector<LoopStride>& UnknownStridesOf(const clang::Expr* pointer);
  const std::vector<BudgetNote>& budget_notes() const { return budget_notes_; }
  // Helpers that were called and not followed because their code does not
  // compile, with the first error in each.
  const std::map<const clang::FunctionDecl*, std::string>& helpers_not_compiled() const {
    return helpers_not_compiled_;
  }

  struct Frame;

 private:
  FlowState RunCfg(const clang::FunctionDecl* fn, const FlowState& entry, const Frame& frame, bool report);
  clang::CFG* CfgOf(const clang::FunctionDecl* fn);

  class CfgRun;  // cfg_solver.cpp
  friend class TransferWalker;
  clang::ASTContext& ast_;
  const std::vector<std::unique_ptr<LintCheck>>& checks_;
  CheckContext& ctx_;
  OpTable& ops_;
  AnalyzerOptions options_;
  KernelSummaries summaries_;
  LoopCounters loop_counters_;  // of every function whose CFG was built
  // What the function being analysed (Analyze) has used of its budget.
  struct Budget {
    long transfers = 0;
    bool forgot_pending = false;
    bool widened = false;
    bool stopped_inlining = false;
  };
  Budget budget_;
  std::vector<BudgetNote> budget_notes_;
  std::map<const clang::FunctionDecl*, std::string> helpers_not_compiled_;
  int cuda_calls_ = 0;
  std::map<const clang::FunctionDecl*, std::string> usrs_;
  std::map<const clang::FunctionDecl*, std::optional<unsigned>> query_params_;
  std::map<const clang::Expr*, std::optional<LoopStride>> strides_;
  std::map<const clang::Expr*, std::vector<LoopStride>> unknown_strides_;
  std::map<const clang::FunctionDecl*, std::unique_ptr<clang::CFG>> cfgs_;
  DriverEntryPoints entry_points_;
};

}  // namespace streamcheck::lint
