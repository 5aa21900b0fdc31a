// What host code touches when it sweeps a buffer: the element a loop reads or
// writes on its first iteration (`for (int i = 0; i < n; ++i) sum += h[i]`
// starts at h[0]), and the ranges the standard algorithms read and write
// (`std::accumulate(h, h + n, 0.0)` reads from h on). A sweep that starts
// inside memory a device operation may still be using races with it on its
// first step, so that step stands for the whole sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/symbolic.h"

namespace clang {
class ASTContext;
class Stmt;
}  // namespace clang

namespace streamcheck::lint {

// A pointer written as `base + index`, `base - index` or `&base[index]`;
// none for any other shape.
struct PointerSplit {
  const clang::Expr* base;
  const clang::Expr* index;
  bool minus;
};
std::optional<PointerSplit> SplitPointer(const clang::Expr* e);

// Counters declared by a `for` statement's initializer with a constant start
// and stepped up by ++/+= a positive constant (LoopCounters, symbolic.h).
void CollectLoopCounters(const clang::Stmt* body, const clang::ASTContext& ast, LoopCounters* counters);

// The value of an index expression on the first iteration of the loops
// around it (`i * n + j` is 0 when i and j start at 0), if the expression is
// built only of constants and counters with +, - and *.
std::optional<int64_t> FirstIterationValue(const clang::Expr* index, const LoopCounters& counters,
                                           const clang::ASTContext& ast);

// Where a pointer into a buffer lies in each iteration of the `for` loop
// around it, when its offset moves by a constant stride with the loop's
// counter (`d + i * chunk`, through `float* p = d + i * chunk;` declared in the
// body) from a pointer the loop does not change: iterations a whole number of
// steps apart touch bytes `step_bytes` times that number apart. Made only
// where one run of the loop is all there is of it here (nothing around it
// runs it again: no enclosing loop, lambda or goto), so an access of the loop
// pending at another is of the same iteration or an earlier one.
struct LoopStride {
  const void* loop = nullptr;   // the clang::ForStmt
  const void* root = nullptr;   // the pointer variable the offset is added to
  std::string context;          // the call-site chain of the frame that runs the loop
  int64_t first_bytes = 0;      // the offset from the root on the loop's first iteration
  int64_t step_bytes = 0;       // how far it moves from one iteration to the next (> 0)
  // Where in the body the access is issued: the statement of the body that
  // holds it, where that statement begins, and the loop inside the body that
  // repeats it within one iteration, if any.
  const void* statement = nullptr;
  unsigned statement_offset = 0;
  const void* inner_loop = nullptr;
  bool operator==(const LoopStride&) const = default;
};
std::optional<LoopStride> StrideAcrossIterations(const clang::Expr* pointer, clang::ASTContext& ast);

// The `for` loops around a pointer whose counters move its offset by an
// amount not known: an offset read from the counter through a call, a table
// or a product with a variable (`base + t.offset` with `Shard t =
// tensor_at(model, i)` declared in the body, `p + offsets[i]`, `p + i * n`).
// Two iterations' pointers then lie at a distance not known, so an access of
// another iteration of such a loop is not compared with it as written. One
// LoopStride a loop, innermost first (root and the byte figures unused);
// whether the loop may run again does not matter: the distance to any other
// iteration's access is not known either way.
std::vector<LoopStride> UnknownStrides(const clang::Expr* pointer, clang::ASTContext& ast);

// Whether a statement may run again with what it did before still pending:
// it lies in a loop, a lambda or a block, or its function has a goto.
bool MayRunAgain(const clang::Stmt* s, clang::ASTContext& ast);

// A standard algorithm and which of its iterator arguments start the ranges
// it reads and writes (-1: none). `args` restricts a row to calls with that
// many arguments (std::transform's unary and binary forms).
struct HostAlgorithm {
  std::string_view name;  // qualified: "std::accumulate"
  int read = -1;
  int read2 = -1;
  int write = -1;
  int args = -1;
};
const HostAlgorithm* FindHostAlgorithm(std::string_view qualified_name, unsigned num_args);

}  // namespace streamcheck::lint
