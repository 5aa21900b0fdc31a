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
#include <clang/Options/Options.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <thread>

#include "analyzer/compile_flags.h"
#include "analyzer/function_analyzer.h"
#include "analyzer/lint_check.h"
#include "analyzer/launch_config_braces.h"
#include "analyzer/prelude/prelude_files.h"

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
    // An invalid one is kept: it is named as not analysed (FunctionsWithErrors).
    if (!fd->doesThisDeclarationHaveABody() || fd->isDependentContext()) return true;
    if (fd->hasAttr<clang::CUDAGlobalAttr>()) return true;
    if (fd->hasAttr<clang::CUDADeviceAttr>() && !fd->hasAttr<clang::CUDAHostAttr>()) return true;
    roots.push_back(fd);
    return true;
  }
  std::vector<const clang::FunctionDecl*> roots;

 private:
  const clang::SourceManager& sm_;
};

// Passes every diagnostic on to the printer and keeps where each error is,
// so functions with errors in them can be left out and the others analysed.
class ErrorRecorder : public clang::DiagnosticConsumer {
 public:
  explicit ErrorRecorder(clang::DiagnosticConsumer& next) : next_(next) {}
  void BeginSourceFile(const clang::LangOptions& lo, const clang::Preprocessor* pp) override {
    next_.BeginSourceFile(lo, pp);
  }
  void EndSourceFile() override { next_.EndSourceFile(); }
  void finish() override { next_.finish(); }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    next_.HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<128> message;
    info.FormatDiagnostic(message);
    // The driver's own errors (a bad flag) come before there are source locations.
    errors.push_back({info.hasSourceManager() ? info.getLocation() : clang::SourceLocation(), message.str().str(),
                      level == clang::DiagnosticsEngine::Fatal});
  }
  struct Error {
    clang::SourceLocation loc;
    std::string message;
    bool fatal = false;  // clang reports no error after it
  };
  std::vector<Error> errors;

 private:
  clang::DiagnosticConsumer& next_;
};

// Whether an expression in the body is clang's stand-in for code that did not compile.
class ErrorFinder : public clang::RecursiveASTVisitor<ErrorFinder> {
 public:
  bool VisitExpr(clang::Expr* e) {
    found = found || e->containsErrors();
    return !found;
  }
  bool found = false;
};

class LintConsumer : public clang::ASTConsumer {
 public:
  LintConsumer(clang::CompilerInstance& ci, LintResult* result, const ErrorRecorder* errors,
               const SummaryTable* summaries, const LintLimits& limits)
      : ci_(ci), result_(result), errors_(errors), summaries_(summaries), limits_(limits) {}

  void HandleTranslationUnit(clang::ASTContext& ast) override {
    AnalyzerOptions options;
    // nvcc --default-stream per-thread defines this (PrepareClangCommand adds it for clang's spelling).
    options.per_thread_default_stream = ci_.getPreprocessor().isMacroDefined("CUDA_API_PER_THREAD_DEFAULT_STREAM");
    RootCollector roots(ast.getSourceManager());
    roots.TraverseDecl(ast.getTranslationUnitDecl());
    std::set<const clang::FunctionDecl*> broken;
    if (ast.getDiagnostics().hasErrorOccurred()) {
      broken = FunctionsWithErrors(ast, roots.roots);
      options.compile_error = [this, &ast](const clang::FunctionDecl* fd) { return ErrorIn(ast, fd); };
    }
    NoteFatalError(ast);
    options.summaries = summaries_;
    options.max_pending = limits_.max_pending == 0 ? static_cast<size_t>(-1) : limits_.max_pending;
    options.max_findings = limits_.max_findings;
    options.external_calls = &result_->external_calls;
    const std::vector<std::unique_ptr<LintCheck>> checks = MakeAllChecks();
    OpTable ops;
    CheckContext ctx(ast, ops, &result_->diagnostics);
    FunctionAnalyzer analyzer(ast, checks, ctx, ops, options);
    result_->functions_total = static_cast<int>(roots.roots.size());
    const OpTable no_ops;
    const CheckContext points(ast, no_ops, nullptr);
    for (const clang::FunctionDecl* fd : roots.roots) {
      if (broken.count(fd) != 0) continue;
      const int cuda_calls = analyzer.cuda_calls();
      analyzer.Analyze(fd);
      ++result_->functions_analysed;
      // Summaries for the other files, computed the first time round only.
      if (summaries_ != nullptr || !fd->isExternallyVisible() ||
          fd->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate) {
        continue;
      }
      const std::optional<unsigned> query = analyzer.QueryParam(fd);
      if (analyzer.cuda_calls() == cuda_calls && !query) continue;
      const std::string& usr = analyzer.Usr(fd);
      if (usr.empty()) continue;
      std::optional<FunctionSummary> summary;
      if (analyzer.cuda_calls() != cuda_calls) summary = analyzer.Summarize(fd);
      if (query) {
        if (!summary) summary.emplace().name = fd->getQualifiedNameAsString();
        summary->query_param = static_cast<int>(*query);
      }
      if (summary) result_->summaries[usr] = std::move(*summary);
    }
    for (const BudgetNote& note : analyzer.budget_notes()) {
      result_->budget_notes.push_back({points.Point(note.function->getLocation()), note.message});
    }
    // A helper left out where it is called leaves its callers' analysis short.
    for (const auto& [helper, error] : analyzer.helpers_not_compiled()) {
      if (broken.count(helper) != 0) continue;
      SkippedFunction skipped;
      skipped.name = helper->getQualifiedNameAsString();
      skipped.at = points.Point(helper->getLocation());
      skipped.error = "its calls are not followed (what it does to the streams it is given is taken as unknown): " + error;
      result_->skipped.push_back(std::move(skipped));
    }
  }

 private:
  // The first error in any function's code: one reported inside its text, or
  // an expression in its body clang could not type. Cached per function.
  const std::string* ErrorIn(clang::ASTContext& ast, const clang::FunctionDecl* fd) {
    auto [it, inserted] = error_in_.try_emplace(fd);
    if (!inserted) return it->second ? &*it->second : nullptr;
    const clang::SourceManager& sm = ast.getSourceManager();
    const clang::SourceLocation begin = sm.getExpansionLoc(fd->getBeginLoc());
    const clang::SourceLocation end = sm.getExpansionLoc(fd->getEndLoc());
    for (const ErrorRecorder::Error& e : errors_->errors) {
      if (e.loc.isInvalid()) continue;
      const clang::SourceLocation loc = sm.getExpansionLoc(e.loc);
      if (!sm.isBeforeInTranslationUnit(loc, begin) && !sm.isBeforeInTranslationUnit(end, loc)) {
        it->second = e.message;
        return &*it->second;
      }
    }
    ErrorFinder finder;
    if (!fd->isInvalidDecl()) finder.TraverseStmt(fd->getBody());
    if (fd->isInvalidDecl() || finder.found) it->second = std::string("an expression in it does not compile");
    return it->second ? &*it->second : nullptr;
  }

  // Where a fatal error was; clang reports nothing after it.
  void NoteFatalError(clang::ASTContext& ast) {
    const OpTable no_ops;
    const CheckContext points(ast, no_ops, nullptr);
    for (const ErrorRecorder::Error& e : errors_->errors) {
      if (!e.fatal) continue;
      result_->fatal_error = true;
      result_->fatal_at = points.Point(e.loc);
      result_->fatal_message = e.message;
      return;
    }
  }

  // The root functions an error lies in (by the error's place in the main
  // file) or whose body holds an expression that did not compile; each gets
  // its first error recorded for the summary.
  std::set<const clang::FunctionDecl*> FunctionsWithErrors(clang::ASTContext& ast,
                                                          const std::vector<const clang::FunctionDecl*>& roots) {
    const clang::SourceManager& sm = ast.getSourceManager();
    const OpTable no_ops;
    CheckContext points(ast, no_ops, nullptr);
    // Each error's place in the main file: its expansion, or the #include line it came through.
    std::vector<std::pair<clang::SourceLocation, const ErrorRecorder::Error*>> in_main;
    for (const ErrorRecorder::Error& e : errors_->errors) {
      if (e.loc.isInvalid()) continue;
      clang::SourceLocation loc = sm.getExpansionLoc(e.loc);
      while (loc.isValid() && !sm.isInMainFile(loc)) loc = sm.getIncludeLoc(sm.getFileID(loc));
      if (loc.isValid()) in_main.push_back({loc, &e});
      if (result_->first_error_message.empty()) {
        result_->first_error = points.Point(e.loc);
        result_->first_error_message = e.message;
      }
    }
    std::set<const clang::FunctionDecl*> broken;
    for (const clang::FunctionDecl* fd : roots) {
      const clang::SourceLocation begin = sm.getExpansionLoc(fd->getBeginLoc());
      const clang::SourceLocation end = sm.getExpansionLoc(fd->getEndLoc());
      const ErrorRecorder::Error* first = nullptr;
      for (const auto& [loc, error] : in_main) {
        if (!sm.isBeforeInTranslationUnit(loc, begin) && !sm.isBeforeInTranslationUnit(end, loc)) {
          first = error;
          break;
        }
      }
      ErrorFinder finder;
      if (first == nullptr && !fd->isInvalidDecl()) finder.TraverseStmt(fd->getBody());
      if (first == nullptr && !fd->isInvalidDecl() && !finder.found) continue;
      broken.insert(fd);
      SkippedFunction skipped;
      skipped.name = fd->getQualifiedNameAsString();
      skipped.at = points.Point(first != nullptr ? first->loc : fd->getLocation());
      skipped.error = first != nullptr ? first->message : "an expression in it does not compile";
      result_->skipped.push_back(std::move(skipped));
    }
    return broken;
  }

  clang::CompilerInstance& ci_;
  LintResult* result_;
  const ErrorRecorder* errors_;
  std::map<const clang::FunctionDecl*, std::optional<std::string>> error_in_;
  const SummaryTable* summaries_;
  LintLimits limits_;
};

class LintAction : public clang::ASTFrontendAction {
 public:
  LintAction(LintResult* result, const ErrorRecorder* errors, const SummaryTable* summaries, const LintLimits& limits)
      : result_(result), errors_(errors), summaries_(summaries), limits_(limits) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<LintConsumer>(ci, result_, errors_, summaries_, limits_);
  }

 private:
  LintResult* result_;
  const ErrorRecorder* errors_;
  const SummaryTable* summaries_;
  LintLimits limits_;
};


// The real file system with the prelude headers laid over it at kPreludeDir,
// and the source file as clang can parse what nvcc accepts in it (braced
// launch-configuration arguments, launch_config_braces.h).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FileSystemWithPrelude(const std::string& directory,
                                                                     const std::string& file) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> real = llvm::vfs::createPhysicalFileSystem();
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> prelude(new llvm::vfs::InMemoryFileSystem);
  for (const PreludeFile& f : PreludeFiles()) {
    prelude->addFile(std::string(kPreludeDir) + "/" + f.path, 0, llvm::MemoryBuffer::getMemBuffer(f.text, f.path));
  }
  llvm::SmallString<256> path(file);
  if (!directory.empty() && llvm::sys::path::is_relative(path)) {
    path = directory;
    llvm::sys::path::append(path, file);
  }
  if (auto source = llvm::MemoryBuffer::getFile(path); source) {
    if (std::optional<std::string> parsable = BracedLaunchConfigAsParens((*source)->getBuffer())) {
      prelude->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(*parsable, path));
    }
  }
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> fs(new llvm::vfs::OverlayFileSystem(real));
  fs->pushOverlay(prelude);
  if (!directory.empty()) fs->setCurrentWorkingDirectory(directory);
  return fs;
}

void RunOne(const LintJob& job, const SummaryTable* summaries, const LintLimits& limits, LintResult* result) {
  const auto start = std::chrono::steady_clock::now();
  result->file = job.file;
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions(), FileSystemWithPrelude(job.directory, job.file)));
  std::string output;
  llvm::raw_string_ostream os(output);
  clang::DiagnosticOptions diag_options;
  diag_options.ShowColors = false;
  clang::TextDiagnosticPrinter printer(os, diag_options);
  ErrorRecorder recorder(printer);
  clang::tooling::ToolInvocation invocation(KnownFlags(job.argv, &result->dropped_flags),
                                            std::make_unique<LintAction>(result, &recorder, summaries, limits), files.get());
  invocation.setDiagnosticConsumer(&recorder);
  const bool ok = invocation.run();
  os.flush();
  result->compiled = ok && recorder.getNumErrors() == 0;
  if (result->first_error_message.empty() && !recorder.errors.empty()) {
    result->first_error_message = recorder.errors.front().message;
  }
  result->compiler_output = output;
  std::stable_sort(result->diagnostics.begin(), result->diagnostics.end(),
                   [](const LintDiagnostic& a, const LintDiagnostic& b) {
                     return std::tie(a.at.file, a.at.line, a.at.column) < std::tie(b.at.file, b.at.line, b.at.column);
                   });
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}


// Runs `run(i)` for each index, `parallelism` at a time.
void ForEachParallel(size_t count, int parallelism, const std::function<void(size_t)>& run) {
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) run(i);
  };
  const int threads = std::max(1, std::min<int>(parallelism, static_cast<int>(count)));
  if (threads == 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
}

}  // namespace

std::vector<LintResult> RunLint(const std::vector<LintJob>& jobs, int parallelism, const LintLimits& limits) {
  std::vector<LintResult> results(jobs.size());
  ForEachParallel(jobs.size(), parallelism, [&](size_t i) { RunOne(jobs[i], nullptr, limits, &results[i]); });
  // A function defined in two files (an inline one, say) keeps its first summary.
  SummaryTable table;
  for (const LintResult& r : results) table.insert(r.summaries.begin(), r.summaries.end());
  std::vector<size_t> again;
  for (size_t i = 0; i < results.size(); ++i) {
    for (const std::string& usr : results[i].external_calls) {
      if (table.count(usr) != 0) {
        again.push_back(i);
        break;
      }
    }
  }
  ForEachParallel(again.size(), parallelism, [&](size_t k) {
    LintResult second;
    RunOne(jobs[again[k]], &table, limits, &second);
    second.seconds += results[again[k]].seconds;
    results[again[k]] = std::move(second);
  });
  return results;
}

// The command without the flags clang's driver does not know (GCC-only
// options that reach the command through -Xcompiler or a g++ entry), which
// would otherwise stop the parse with "unknown argument".
std::vector<std::string> KnownFlags(const std::vector<std::string>& argv, std::vector<std::string>* dropped) {
  if (argv.empty()) return argv;
  std::vector<const char*> raw;
  for (size_t i = 1; i < argv.size(); ++i) raw.push_back(argv[i].c_str());
  unsigned missing_index = 0, missing_count = 0;
  const llvm::opt::InputArgList args = clang::getDriverOptTable().ParseArgs(
      raw, missing_index, missing_count, llvm::opt::Visibility(clang::options::ClangOption));
  std::set<unsigned> unknown;
  for (const llvm::opt::Arg* a : args.filtered(clang::options::OPT_UNKNOWN)) {
    unknown.insert(a->getIndex());
    dropped->push_back(a->getAsString(args));
  }
  std::vector<std::string> out = {argv[0]};
  for (size_t i = 1; i < argv.size(); ++i) {
    if (unknown.count(static_cast<unsigned>(i - 1)) == 0) out.push_back(argv[i]);
  }
  return out;
}

}  // namespace streamcheck::lint
