// What host code touches when it sweeps a buffer: the element a loop reads or
// writes on its first iteration (`for (int i = 0; i < n; ++i) sum += h[i]`
// starts at h[0]), and the ranges the standard algorithms read and write
// (`std::accumulate(h, h + n, 0.0)` reads from h on). A sweep that starts
// inside memory a device operation may still be using races with it on its
// first step, so that step stands for the whole sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "analyzer/symbolic.h"

namespace clang {
class Stmt;
}  // namespace clang

namespace streamcheck::lint {

// Counters declared by a `for` statement's initializer with a constant start
// and stepped up by ++/+= a positive constant (LoopCounters, symbolic.h).
void CollectLoopCounters(const clang::Stmt* body, const clang::ASTContext& ast, LoopCounters* counters);

// The value of an index expression on the first iteration of the loops
// around it (`i * n + j` is 0 when i and j start at 0), if the expression is
// built only of constants and counters with +, - and *.
std::optional<int64_t> FirstIterationValue(const clang::Expr* index, const LoopCounters& counters,
                                           const clang::ASTContext& ast);

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
