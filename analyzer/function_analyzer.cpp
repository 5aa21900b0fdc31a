#include "analyzer/function_analyzer.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Analysis/CFG.h>

#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {

FunctionAnalyzer::FunctionAnalyzer(clang::ASTContext& ast, const std::vector<std::unique_ptr<LintCheck>>& checks,
                                   CheckContext& ctx, OpTable& ops, const AnalyzerOptions& options)
    : ast_(ast), checks_(checks), ctx_(ctx), ops_(ops), options_(options), summaries_(ast, options.compile_error) {}

FunctionAnalyzer::~FunctionAnalyzer() = default;

clang::CFG* FunctionAnalyzer::CfgOf(const clang::FunctionDecl* fn) {
  auto it = cfgs_.find(fn);
  if (it != cfgs_.end()) return it->second.get();
  clang::CFG::BuildOptions options;
  options.AddImplicitDtors = false;
  options.AddTemporaryDtors = false;
  options.AddInitializers = false;
  options.AddLifetime = true;  // a buffer's scope ends under a pending copy (TransferWalker::EndOfScope)
  std::unique_ptr<clang::CFG> cfg = clang::CFG::buildCFG(fn, fn->getBody(), &ast_, options);
  CollectLoopCounters(fn->getBody(), ast_, &loop_counters_);
  return (cfgs_[fn] = std::move(cfg)).get();
}

void FunctionAnalyzer::Analyze(const clang::FunctionDecl* fn) {
  Frame top;
  top.stack.push_back(fn);
  top.bindings.counters = &loop_counters_;
  FlowState entry;
  entry.reached = true;
  budget_ = Budget{};
  ctx_.BeginFunction(options_.max_findings);
  RunCfg(fn, entry, top, true);
  std::vector<std::string> given_up;
  if (budget_.forgot_pending) {
    given_up.push_back("more than " + std::to_string(options_.max_pending) +
                       " operations were pending at once, and the oldest were taken as finished, so races with "
                       "them may be missed");
  }
  if (budget_.widened) {
    given_up.push_back("a loop did not settle in " + std::to_string(options_.max_loop_passes) +
                       " passes and its state was widened, so the order it gives may be missed");
  }
  if (budget_.stopped_inlining) {
    given_up.push_back("after " + std::to_string(options_.max_transfers) +
                       " block transfers the helpers it calls were no longer followed");
  }
  if (ctx_.EndFunction()) {
    given_up.push_back("it has more than " + std::to_string(options_.max_findings) +
                       " findings, and only the first were looked for and reported");
  }
  if (given_up.empty()) return;
  std::string message = "`" + fn->getQualifiedNameAsString() +
                        "` was analysed with reduced precision (the lint's per-function budget): ";
  for (size_t i = 0; i < given_up.size(); ++i) message += (i == 0 ? "" : "; ") + given_up[i];
  budget_notes_.push_back({fn, message});
}

const std::optional<LoopStride>& FunctionAnalyzer::StrideOf(const clang::Expr* pointer) {
  auto it = strides_.find(pointer);
  if (it == strides_.end()) it = strides_.emplace(pointer, StrideAcrossIterations(pointer, ast_)).first;
  return it->second;
}

const std::vector<LoopStride>& FunctionAnalyzer::UnknownStridesOf(const clang::Expr* pointer) {
  auto it = unknown_strides_.find(pointer);
  if (it == unknown_strides_.end()) it = unknown_strides_.emplace(pointer, UnknownStrides(pointer, ast_)).first;
  return it->second;
}

}  // namespace streamcheck::lint
