// The transfer function of one CFG element, written as a top-down walk over
// the statement that carries how each lvalue is used (read, written, address
// taken). The walk itself (declarations, assignments, host accesses) lives in
// transfer_walker.cpp, calls and the helpers followed into in helper_calls.cpp;
// what each CUDA API call does to the stream state lives beside the API table,
// in cuda_api_semantics.cpp.
// Internal to the analyzer: included by function_analyzer.cpp and those three.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include "analyzer/cuda_api.h"
#include "analyzer/host_loops.h"
#include "analyzer/function_analyzer.h"
#include "analyzer/function_summary.h"
#include "analyzer/library_api.h"

namespace streamcheck::lint {

struct FunctionAnalyzer::Frame {
  Bindings bindings;
  clang::SourceLocation anchor;  // the call site in the analysed function; invalid at the top
  std::string helper;            // innermost inlined helper's name
  std::string context;           // call-site chain, keeps op ids distinct per call site
  std::vector<const clang::FunctionDecl*> stack;
  // Called in a loop (or what may run again) somewhere up the chain: its
  // loops may run again with their earlier work pending (LoopStride).
  bool may_run_again = false;
  // Pointer parameters bound to arguments that move with the counters of
  // loops around the call by an amount not known: those loops (UnknownStrides).
  std::map<const clang::ValueDecl*, std::vector<LoopStride>> unknown_strides;
};

// How the value of an lvalue expression is used where it appears.
enum class Use { kValue, kRead, kWrite, kReadWrite, kAddress };

// `&s` names the object s; a pointer parameter `s` names `*s`.
std::string PointeeKey(const Symbol& s);
std::string PointeeText(const Symbol& s);
bool IsStreamType(clang::QualType t);
// Opaque CUDA handles: copied by value, never buffers.
bool IsHandleType(clang::QualType t);
bool IsEventType(clang::QualType t);
bool IsStdVector(clang::QualType t);
// A class whose name says it is an iterator (std::vector's, and the like).
bool IsIterator(clang::QualType t);
// A pointer a query answer is kept for (PointerQueryOf).
bool IsQueryablePointer(const Symbol& pointer);

class TransferWalker {
 public:
  TransferWalker(FunctionAnalyzer& fa, FlowState& state, const FunctionAnalyzer::Frame& frame, bool report,
                 std::set<const clang::Stmt*>& done)
      : fa_(fa), ast_(fa.ast_), s_(state), frame_(frame), report_(report), done_(done) {}

  void Visit(const clang::Stmt* st, Use use);

 private:
  KnownScope Known() const { return KnownScope{frame_.bindings, ast_, s_.known_values, s_.aliases}; }
  // transfer_walker.cpp: names, host accesses, declarations, helpers.
  clang::SourceLocation Loc(clang::SourceLocation inner) const;
  BufferRef Buf(const clang::Expr* e) const;
  // Known to be pageable host memory (malloc, new, a vector, an array here).
  bool IsPageableHost(const clang::Expr* e) const;
  // Known to be host memory of any kind (pageable, pinned, registered).
  bool IsHostMemory(const clang::Expr* e) const;
  Symbol Sym(const clang::Expr* e) const;
  Symbol DefaultStream() const;
  Symbol StreamSym(const clang::Expr* e) const;
  const clang::Expr* Arg(const clang::CallExpr* call, int i) const;
  void Host(const clang::Expr* base, const clang::Expr* index, Use use, clang::SourceLocation loc);
  void HostRef(const BufferRef& ref, AccessMode mode, clang::SourceLocation loc,
               const std::optional<BufferRef>& first_step = std::nullopt);
  // In a loop, where `base[offset]` (`pointer` = `p + off`, `&p[off]`) is on the
  // first iteration, when the offset moves with loop counters (`h[i]` from i = 0 is h[0]).
  std::optional<BufferRef> FirstStep(const clang::Expr* base, const clang::Expr* offset) const;
  std::optional<BufferRef> FirstStep(const clang::Expr* pointer) const;
  // Where an op's pointer argument lies across the iterations of the loop
  // around it (LoopStride), in this frame's one run of that loop.
  std::optional<LoopStride> Stride(const DeviceOp& op, const clang::Expr* pointer) const;
  // The loops around a pointer issued at `at` (here or, for a parameter, at
  // the calls that bound it) that move it by an amount not known.
  std::vector<LoopStride> UnknownStridesAt(clang::SourceLocation at, const clang::Expr* pointer) const;
  // `++p`, `p += k`: a pointer (or iterator) aliasing a buffer moves through it.
  void Step(const clang::Expr* pointer, int64_t sign, const clang::Expr* by);
  void HostAlgorithmCall(const clang::CallExpr* call, const HostAlgorithm& algorithm);
  void NoteAllocation(const std::string& key, MemoryKind kind, const std::string& api, clang::SourceLocation loc);
  void Bind(const std::string& key, clang::QualType type, const clang::Expr* init, clang::SourceLocation loc);
  void Declare(const clang::VarDecl* v);
  void Return(const clang::Expr* value);
  // query_polling.cpp: a variable set to a query's result, a helper returning a test of one.
  void RecordQueryResult(const std::string& key, const clang::Expr* value);
  // `dev = getDeviceForAddress(p)`: the question `dev` now answers (symbolic.h).
  void RecordPointerQuery(const std::string& key, const clang::Expr* value);
  // What a call of `call`'s callee with its argument asks: "loc:USR(P)" (or
  // "loc?:" for a function of another file not known yet), and P's key.
  std::optional<QueryValue> PointerQueryOf(const clang::CallExpr* call);
  // A parameter written in its function (FlowState::rebound), and whether a key is of one.
  void NoteRebound(const clang::Expr* written);
  bool Rebound(const std::string& key) const;
  void ReturnQueryTest(const clang::Expr* value);
  // A local object whose initializer left a capture open (FlowState::capture_guards).
  void GuardCaptures(const clang::VarDecl* v, const Symbol& self, const clang::Expr* init);

 public:
  // A CFG lifetime end: a local array or std::vector goes out of scope, or
  // a guard that ends a capture dies.
  void EndOfScope(const clang::VarDecl* v, clang::SourceLocation loc);

 private:
  void Assign(const clang::BinaryOperator* b);
  // The definition to analyse in place for a call to `fd`, or nullptr (not
  // the main file's, a kernel, too deep, recursive, does not compile).
  const clang::FunctionDecl* Inlinable(const clang::FunctionDecl* fd) const;
  std::vector<std::string> VisitArguments(const clang::CallExpr* call, const clang::FunctionDecl* fd);
  // A constructor run on a new object (`new T(...)`, std::make_shared<T>(...)),
  // if it is followed.
  bool Construct(const clang::Expr* site, const clang::CXXConstructorDecl* ctor,
                 const std::vector<const clang::Expr*>& args);
  const clang::CXXConstructorDecl* MadeBy(const clang::CallExpr* call, const clang::FunctionDecl* fd) const;
  void Inline(const clang::Expr* site, const clang::FunctionDecl* fd, const std::vector<const clang::Expr*>& args,
              const Symbol& this_object);
  void Call(const clang::CallExpr* call);
  void ForgetFreedUnder(const clang::CallExpr* call);
  void ForgetFreedUnder(const std::string& key, bool itself);
  void Repoint(const std::string& root);

  // cuda_api_semantics.cpp: what each modeled CUDA call does.
  // `part` tells apart several ops one statement issues (a summary's).
  DeviceOp& NewOp(const clang::Stmt* st, const std::string& api, const std::string& what, const Symbol& stream,
                  const std::string& part = "");
  void AddAccess(DeviceOp& op, const clang::Expr* ptr, AccessMode mode, const clang::Expr* count);
  void FirstStepStream(DeviceOp& op, const clang::Expr* stream);
  void Issue(DeviceOp& op);
  void KernelArgs(DeviceOp& op, const clang::FunctionDecl* kernel, const std::vector<const clang::Expr*>& args);
  void KernelLaunch(const clang::CUDAKernelCallExpr* k);
  void LaunchKernelApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void Free(const BufferRef& ref, const Symbol& stream, const std::string& api, clang::SourceLocation loc);
  void EventWaitHook(const Symbol& event, const Symbol& stream, const std::string& api, clang::SourceLocation loc);
  void Copy(const clang::CallExpr* call, const ApiModel& api, const std::string& name, bool sync);
  void Memset(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  // cudaMalloc*, cudaHostAlloc, cudaHostRegister: the buffer's memory kind.
  void Allocate(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void FreeApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void CreateStream(const clang::CallExpr* call);
  // Event create, record, host and stream waits, elapsed time.
  void EventApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void EndCapture(const clang::CallExpr* call);
  void EndCapture(const std::string& origin, const Symbol& graph);
  void GraphApi(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void GraphLaunch(const clang::CallExpr* call, const std::string& name);
  void GraphNode(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  void Api(const clang::CallExpr* call, const ApiModel& api, const std::string& name);
  // library_semantics.cpp: a call into cuBLAS, cuFFT, NCCL, ... (library_api.h).
  void LibraryCall(const clang::CallExpr* call, const clang::FunctionDecl* fd, const LibraryModel& library,
                   const std::string& name);
  // function_summary.cpp: a call to a function defined in another file.
  void ApplySummary(const clang::CallExpr* call, const FunctionSummary& summary);
  void GuardByQuery(const DeviceOp& op, const SummaryOp& queued, const clang::CallExpr* call);
  std::string RangeAtCall(const std::string& range, const clang::CallExpr* call) const;

  FunctionAnalyzer& fa_;
  clang::ASTContext& ast_;
  FlowState& s_;
  const FunctionAnalyzer::Frame& frame_;
  bool report_;
  std::set<const clang::Stmt*>& done_;
};

// Where the stream a library handle is bound to is kept (FlowState::values).
std::string LibraryStreamKey(const Symbol& handle);

// A branch on a query (query_polling.cpp): what it tests (the
// cudaStreamQuery/cudaEventQuery call, a variable holding its result, or a
// helper's call that returned a test of one) and which truth means success.
struct QueryTest {
  const clang::Expr* tested = nullptr;  // nullptr: not a query test
  bool truth_is_error = false;          // the tested expression is true when the query did not succeed
  bool negated = false;                 // under a `!`
};
QueryTest QueryBranch(const clang::Expr* cond, const clang::ASTContext& ast);
// `e` (or what `x = e` assigns) when it is a cudaStreamQuery/cudaEventQuery call.
const clang::CallExpr* QueryCall(const clang::Expr* e);
// On the branch's edge taken when the condition is `taken_true`: if the query
// returned cudaSuccess there, the host has seen the queried work finish.
void QuerySucceeded(FlowState& s, const QueryTest& test, bool taken_true, const Bindings& bindings,
                    const clang::ASTContext& ast, bool per_thread_default_stream, const OpTable& ops);

}  // namespace streamcheck::lint
