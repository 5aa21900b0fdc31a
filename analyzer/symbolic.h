// Symbolic names for what the analysis tracks across statements: a stream,
// an event or a buffer is identified by the expression that names it
// (`s`, `streams[i]`, `cfg.stream`), resolved through the parameters of an
// inlined helper to the caller's expressions. Buffers are a base plus an offset.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class ValueDecl;
class VarDecl;
}  // namespace clang

namespace streamcheck::lint {

struct Symbol {
  std::string key;   // identity: equal keys name the same value
  std::string text;  // as written, for messages
  bool empty() const { return key.empty(); }
  bool operator==(const Symbol&) const = default;
};

// A pointer into a buffer: the base it was derived from and the offset added.
struct BufferRef {
  Symbol base;
  std::string offset_key;                // symbolic offset in elements; "" = none
  std::string offset_text;
  std::optional<int64_t> offset_bytes;   // when the offset is a constant (0 when none)
  bool valid() const { return !base.empty(); }
  bool operator==(const BufferRef&) const = default;
  std::string Text() const { return offset_text.empty() ? base.text : base.text + " + " + offset_text; }
};

// Counters of `for` loops (a constant start, stepped up): their value on the
// first iteration. Subscripting an array with one names any of its elements.
using LoopCounters = std::map<const clang::VarDecl*, int64_t>;

// What names mean in one analysed frame: the parameters of an inlined helper
// bound to the caller's arguments, and `this` of an inlined method.
struct Bindings {
  std::map<const clang::ValueDecl*, Symbol> values;
  std::map<const clang::ValueDecl*, BufferRef> buffers;
  // `this` of an inlined method: `&obj` for `obj.f()`, `p` for `p->f()`; empty: unbound.
  Symbol this_object;
  // `streams[i]` with i a loop counter is `streams[*]`: the loop that creates
  // the streams, the one that launches on them and the one that synchronizes
  // them all sweep the same array, each with its own counter.
  const LoopCounters* counters = nullptr;
  int getter_depth = 0;  // getters followed to reach this frame (SymbolOf)
  // The call-site chain of an inlined helper: its local variables are its
  // own at each call (two calls of `make_stream()` make two streams); those
  // of the function around a lambda (its captures) are not.
  std::string context;
  const void* function = nullptr;  // the inlined helper (a clang::DeclContext)
};

Symbol SymbolOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx);
Symbol SymbolOfDecl(const clang::ValueDecl* d, const Bindings& b);
// "a[i]" -> "a[*]": the key of any element of the array an element key is
// of (as a loop over the array names it); "" when the key is no element.
std::string AnyElementKey(const std::string& key);
// `this` for a method called on `object`: `&obj` for an object, the pointer itself for a pointer.
Symbol ObjectOf(const clang::Expr* object, const Bindings& b, const clang::ASTContext& ctx);
// The base and offset of a pointer-valued expression (`p`, `p + i*n`, `&p[k]`,
// `v.data()`, an array); invalid when the expression is not of that shape.
BufferRef BufferOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx);
std::optional<int64_t> ConstantOf(const clang::Expr* e, const clang::ASTContext& ctx);
// A constant, or an expression of parameters bound to constants (`k * 256`
// in a helper called with k = 1, `if (wait)` called with true).
std::optional<int64_t> ValueOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx);
// The expression under parentheses, casts, temporaries, default arguments
// and copies (`std::vector<float> v = fill(s)` is the call `fill(s)`).
const clang::Expr* StripTemporaries(const clang::Expr* e);
// Written in the project (the main file or one of its own headers), not in a
// system header (the toolkit's, the standard library's): followed into at calls.
bool IsProjectCode(const clang::FunctionDecl* fd, const clang::ASTContext& ctx);
// A variable holding a pointer-location query's answer (`int dev =
// getDeviceForAddress(p)`): the key of the question, "loc:USR(P)" with P the
// pointer's key, the same at every call that asks it of P, and what it reads
// (P). A function defined in another file, not yet known to be such a query,
// gives "loc?:USR(P)|VAR", one variable's answer: a summary's guard names
// the query, for callers that know it (function_summary.cpp).
struct QueryValue {
  std::string key;
  std::vector<std::string> vars;
  bool operator==(const QueryValue&) const = default;
};
using QueryValues = std::map<std::string, QueryValue>;

// A condition made only of variables, constants, comparisons, arithmetic and
// logical operators (`blocking_coll && agg_iters <= 1`), as a key that is the
// same wherever the same condition is tested; the keys of the variables it
// reads go to `vars`. A variable in `queries` stands for its question, so
// `dev == -1` in two helpers that asked it of one pointer is one key. None
// for anything else (a call, a member of a call).
std::optional<std::string> ConditionKey(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx,
                                        std::vector<std::string>* vars, const QueryValues* queries = nullptr);
// Source text of an expression as written.
std::string TextOf(const clang::Expr* e, const clang::ASTContext& ctx);

}  // namespace streamcheck::lint
