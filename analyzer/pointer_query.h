// A function whose result says where a pointer lives and nothing else
// (faiss's `int getDeviceForAddress(const void* p)`: cudaPointerGetAttributes
// of p, -1 for host memory): two calls with the same pointer, not written
// between, answer alike, so two helpers' tests of it decide alike.
#pragma once

#include <optional>

namespace clang {
class FunctionDecl;
}  // namespace clang

namespace streamcheck::lint {

// The index of the pointer parameter `def` asks about, when its body is such
// a query: one pointer parameter; an integer, enum or bool result; no loop,
// `this`, static or global read, dereference or call but
// cudaPointerGetAttributes(&local, p), except in a failure branch that never
// returns (an assertion's `fprintf` and `abort`); and cudaGetLastError's or
// cudaPeekAtLastError's value (the thread's error state) read only in such a
// branch's test or before the variable holding it was assigned it. None
// otherwise, or without a body.
std::optional<unsigned> PointerQueryParam(const clang::FunctionDecl* def);

}  // namespace streamcheck::lint
