// Values a path knows variables hold: a constant stored in them (`c->stage =
// 0`, or a helper's parameter bound to 0 stored in a field), or found not
// null by a test it passed (`if (p == NULL) exit(1);`); and the values an
// inlined helper's parameters are bound to (a flag given as `true`, an
// out-parameter given as `&x`, or as NULL). A later test of them then goes
// the one way it can: the branch behind a configuration field a setter
// fixed, the NULL path of memory from an allocator that exits on NULL, a
// helper's optional out-parameter at each call site.
// Keys are those of SymbolOf; what a variable's write forgets is ForgetFacts'
// (stream_state.h), with the conditions the path took.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <clang/AST/Type.h>

#include "analyzer/symbolic.h"

namespace clang {
class ASTContext;
class Expr;
}  // namespace clang

namespace streamcheck::lint {

struct KnownValue {
  std::optional<int64_t> value;  // none: not zero (a pointer found not null), the value itself unknown
  bool operator==(const KnownValue&) const = default;
};
using KnownValues = std::map<std::string, KnownValue>;

// What the evaluation may read: the frame's names, the path's known values,
// and the pointers it knows to alias another (a field holding what an
// inlined allocator returned is that allocator's pointer).
struct KnownScope {
  const Bindings& bindings;
  const clang::ASTContext& ast;
  const KnownValues& known;
  const std::map<std::string, BufferRef>& aliases;
};

// The value of an integer, enum, bool or pointer expression made of
// constants, known variables and arithmetic, comparison and logical
// operators; none when any part it needs is unknown.
std::optional<KnownValue> EvaluateKnown(const clang::Expr* e, const KnownScope& scope);

// A branch condition's value, where the known values decide it.
std::optional<bool> KnownTruth(const clang::Expr* cond, const KnownScope& scope);

// What taking the `value` edge of a condition tells of the variables it
// tests (`x == 3` true: x is 3; `p != NULL` or `p` true: p is not null).
void LearnFromCondition(const clang::Expr* cond, bool value, const KnownScope& scope, KnownValues* known);

// Whether a variable of this type and key keeps a known value: a scalar or
// pointer (not a reference) with a stable key, not an element of an array a
// loop sweeps (`a[*]`).
bool HoldsKnownValue(const Symbol& variable, clang::QualType type);

}  // namespace streamcheck::lint
