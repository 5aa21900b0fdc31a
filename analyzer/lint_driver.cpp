#include "analyzer/lint_driver.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "analyzer/function_analyzer.h"
#include "analyzer/lint_check.h"

namespace streamcheck::lint {
namespace {

// The host functions written in the main file (template instantiations
// included); headers are skipped whole, which keeps the lint close to the
// cost of parsing.
class RootCollector : public clang::RecursiveASTVisitor<RootCollector> {
 public:
  explicit RootCollector(const clang::SourceManager& sm) : sm_(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(clang::Decl* d) {
    if (d == nullptr) return true;
    if (!llvm::isa<clang::TranslationUnitDecl>(d) && !sm_.isInMainFile(sm_.getExpansionLoc(d->getLocation()))) {
      return true;
    }
    return RecursiveASTVisitor::TraverseDecl(d);
  }
  // Function bodies are analysed through their CFG, not walked here.
  bool TraverseStmt(clang::Stmt*) { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl* fd) {
    if (!fd->doesThisDeclarationHaveABody() || fd->isDependentContext() || fd->isInvalidDecl()) return true;
    if (fd->hasAttr<clang::CUDAGlobalAttr>()) return true;
    if (fd->hasAttr<clang::CUDADeviceAttr>() && !fd->hasAttr<clang::CUDAHostAttr>()) return true;
    roots.push_back(fd);
    return true;
  }
  std::vector<const clang::FunctionDecl*> roots;

 private:
  const clang::SourceManager& sm_;
};

class LintConsumer : public clang::ASTConsumer {
 public:
  LintConsumer(clang::CompilerInstance& ci, LintResult* result) : ci_(ci), result_(result) {}

  void HandleTranslationUnit(clang::ASTContext& ast) override {
    if (ast.getDiagnostics().hasErrorOccurred()) return;
    AnalyzerOptions options;
    // nvcc --default-stream per-thread (clang: -fgpu-default-stream=per-thread) defines this.
    options.per_thread_default_stream = ci_.getPreprocessor().isMacroDefined("CUDA_API_PER_THREAD_DEFAULT_STREAM");
    const std::vector<std::unique_ptr<LintCheck>> checks = MakeAllChecks();
    OpTable ops;
    CheckContext ctx(ast, ops, &result_->diagnostics);
    FunctionAnalyzer analyzer(ast, checks, ctx, ops, options);
    RootCollector roots(ast.getSourceManager());
    roots.TraverseDecl(ast.getTranslationUnitDecl());
    for (const clang::FunctionDecl* fd : roots.roots) analyzer.Analyze(fd);
  }

 private:
  clang::CompilerInstance& ci_;
  LintResult* result_;
};

class LintAction : public clang::ASTFrontendAction {
 public:
  explicit LintAction(LintResult* result) : result_(result) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<LintConsumer>(ci, result_);
  }

 private:
  LintResult* result_;
};

void RunOne(const LintJob& job, LintResult* result) {
  const auto start = std::chrono::steady_clock::now();
  result->file = job.file;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs = llvm::vfs::createPhysicalFileSystem();
  if (!job.directory.empty()) fs->setCurrentWorkingDirectory(job.directory);
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(new clang::FileManager(clang::FileSystemOptions(), fs));
  std::string output;
  llvm::raw_string_ostream os(output);
  clang::DiagnosticOptions diag_options;
  diag_options.ShowColors = false;
  clang::TextDiagnosticPrinter printer(os, diag_options);
  clang::tooling::ToolInvocation invocation(job.argv, std::make_unique<LintAction>(result), files.get());
  invocation.setDiagnosticConsumer(&printer);
  const bool ok = invocation.run();
  os.flush();
  result->compiled = ok && printer.getNumErrors() == 0;
  result->compiler_output = output;
  std::stable_sort(result->diagnostics.begin(), result->diagnostics.end(),
                   [](const LintDiagnostic& a, const LintDiagnostic& b) {
                     return std::tie(a.at.file, a.at.line, a.at.column) < std::tie(b.at.file, b.at.line, b.at.column);
                   });
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<LintResult> RunLint(const std::vector<LintJob>& jobs, int parallelism) {
  std::vector<LintResult> results(jobs.size());
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) RunOne(jobs[i], &results[i]);
  };
  const int threads = std::max(1, std::min<int>(parallelism, static_cast<int>(jobs.size())));
  if (threads == 1) {
    worker();
    return results;
  }
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  return results;
}

}  // namespace streamcheck::lint
