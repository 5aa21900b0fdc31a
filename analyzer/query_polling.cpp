// Polling is waiting: cudaStreamQuery/cudaEventQuery returning cudaSuccess
// orders the host after the queried work (CUDA's stream and event rules), so
// the CFG edge a successful query takes carries a host synchronization. The
// query may be tested where it is called (`while (cudaStreamQuery(s) ==
// cudaErrorNotReady)`), through a variable that holds its result (`do { err
// = cudaEventQuery(e); } while (err == cudaErrorNotReady);`), or through a
// helper's boolean (`while (!ready(s))`).
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {
namespace {

}  // namespace

const clang::CallExpr* QueryCall(const clang::Expr* e) {
  if (e == nullptr) return nullptr;
  e = e->IgnoreParenCasts();
  if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b != nullptr && b->getOpcode() == clang::BO_Assign) {
    e = b->getRHS()->IgnoreParenCasts();
  }
  const auto* call = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl* fd = call != nullptr ? call->getDirectCallee() : nullptr;
  if (fd == nullptr || fd->getIdentifier() == nullptr) return nullptr;
  const ApiModel* api = FindApi(fd->getName());
  return api != nullptr && (api->kind == ApiKind::kStreamQuery || api->kind == ApiKind::kEventQuery) ? call : nullptr;
}

namespace {

// What a branch tests: a query call, a variable (that may hold a query's
// result) or a call to a helper (that may return a test of one).
const clang::Expr* Tested(const clang::Expr* e) {
  if (const clang::CallExpr* q = QueryCall(e)) return q;
  e = e->IgnoreParenCasts();
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e); ref != nullptr && llvm::isa<clang::VarDecl>(ref->getDecl())) {
    return ref;
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) return call;
  return nullptr;
}

// The stream or event queried, through the variables that name it (`cur = s1`).
FlowState::QueryResult ResultOf(const clang::CallExpr* query, const FlowState& s, const Bindings& b,
                                const clang::ASTContext& ast, bool per_thread_default_stream) {
  FlowState::QueryResult r;
  r.stream = FindApi(query->getDirectCallee()->getName())->kind == ApiKind::kStreamQuery;
  Symbol target = query->getNumArgs() > 0 ? SymbolOf(query->getArg(0), b, ast) : Symbol{};
  for (int i = 0; i < 4 && !target.empty(); ++i) {
    auto it = s.values.find(target.key);
    if (it == s.values.end()) break;
    target = it->second;
  }
  r.target = target.key;
  if (r.stream && (r.target == "#0" || query->getNumArgs() == 0)) {
    r.target = per_thread_default_stream ? kPerThreadStream : kLegacyStream;
  }
  return r;
}

}  // namespace

QueryTest QueryBranch(const clang::Expr* cond, const clang::ASTContext& ast) {
  QueryTest t;
  if (cond == nullptr) return t;
  cond = cond->IgnoreParenImpCasts();
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(cond); u != nullptr && u->getOpcode() == clang::UO_LNot) {
    t = QueryBranch(u->getSubExpr(), ast);
    t.negated = !t.negated;
    return t;
  }
  if ((t.tested = Tested(cond)) != nullptr) {
    t.truth_is_error = true;  // as a condition: nonzero (an error) is true
    return t;
  }
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(cond);
  if (b == nullptr || (b->getOpcode() != clang::BO_EQ && b->getOpcode() != clang::BO_NE)) return t;
  const clang::Expr* other = b->getRHS();
  t.tested = Tested(b->getLHS());
  if (t.tested == nullptr) {
    t.tested = Tested(b->getRHS());
    other = b->getLHS();
  }
  const std::optional<int64_t> c = t.tested != nullptr ? ConstantOf(other, ast) : std::nullopt;
  if (!c) return QueryTest{};
  // cudaSuccess is 0; anything else (cudaErrorNotReady) means "not yet".
  const bool eq = b->getOpcode() == clang::BO_EQ;
  t.truth_is_error = eq != (*c == 0);
  return t;
}

void QuerySucceeded(FlowState& s, const QueryTest& test, bool taken_true, const Bindings& b,
                    const clang::ASTContext& ast, bool per_thread_default_stream, const OpTable& ops) {
  const bool truth = taken_true != test.negated;
  std::optional<FlowState::QueryResult> result;
  if (const clang::CallExpr* q = QueryCall(test.tested)) {
    if (truth == test.truth_is_error) return;  // the error (not ready) edge
    result = ResultOf(q, s, b, ast, per_thread_default_stream);
  } else if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(test.tested)) {
    auto it = s.query_results.find(SymbolOf(ref, b, ast).key);
    if (it == s.query_results.end() || it->second.target.empty() || truth == test.truth_is_error) return;
    result = it->second;
  } else if (s.returned_query && s.returned_query->call == test.tested) {
    // A helper's boolean: nonzero on this edge when the condition's truth
    // says so (`ready(s)`, `ready(s) != 0`), zero otherwise (`ready(s) == 0`).
    const bool value = truth == test.truth_is_error;
    if (value != s.returned_query->success_when_true) return;
    result = s.returned_query;
  }
  if (!result || result->target.empty()) return;
  if (result->stream) {
    HostSyncStream(s, result->target, ops);
  } else {
    HostSyncEvent(s, result->target, ops);
  }
}

// `err = cudaStreamQuery(s)`, `cudaError_t err = cudaErrorNotReady`.
void TransferWalker::RecordQueryResult(const std::string& key, const clang::Expr* value) {
  s_.query_results.erase(key);
  if (value == nullptr) return;
  if (const clang::CallExpr* q = QueryCall(value)) {
    s_.query_results[key] = ResultOf(q, s_, frame_.bindings, ast_, fa_.options_.per_thread_default_stream);
  } else if (const std::optional<int64_t> c = ConstantOf(value, ast_); c && *c != 0) {
    s_.query_results[key] = FlowState::QueryResult{};  // not cudaSuccess
  }
}

// `return cudaStreamQuery(s) == cudaSuccess;` in a helper: its caller's
// branch on the result is a branch on the query.
void TransferWalker::ReturnQueryTest(const clang::Expr* value) {
  s_.returned_query.reset();
  if (value == nullptr || !value->getType()->isBooleanType()) return;
  const QueryTest t = QueryBranch(value, ast_);
  const clang::CallExpr* q = t.tested != nullptr ? QueryCall(t.tested) : nullptr;
  if (q == nullptr) return;
  FlowState::QueryResult r = ResultOf(q, s_, frame_.bindings, ast_, fa_.options_.per_thread_default_stream);
  // The value is true exactly when the test's truth is "success".
  r.success_when_true = t.negated == t.truth_is_error;
  s_.returned_query = r;
}

}  // namespace streamcheck::lint
