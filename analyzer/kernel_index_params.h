// Which scalar parameters of a kernel choose the elements it touches through
// each pointer parameter: `a_new[iy * nx + ix]` with `iy = ... + iy_start`
// depends on iy_start and nx. Two launches of one kernel on one buffer that
// pass different values there (a halo row and the interior, multi-GPU
// Jacobi solvers' `iy_start, iy_start + 1` and `iy_start + 1, iy_end - 1`)
// may touch disjoint parts: their overlap is not known.
#pragma once

#include <vector>

namespace clang {
class FunctionDecl;
}  // namespace clang

namespace streamcheck::lint {

// Per parameter, the indices of the non-pointer parameters its subscripts and
// pointer arithmetic read (through the kernel's locals); empty for a
// parameter used whole or passed on to another function.
std::vector<std::vector<unsigned>> ScalarParamsIndexing(const clang::FunctionDecl* kernel);

}  // namespace streamcheck::lint
