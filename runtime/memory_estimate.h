// What the engine's tables hold on the heap, estimated from their sizes and
// capacities (EngineStats::memory_bytes): a node-based container's node is
// its payload, its links and malloc's header, rounded as glibc rounds a
// chunk. Deterministic, unlike the process's resident set, so tests can hold
// it to a bound.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace streamcheck::memory {

// A malloc'd block of `n` bytes: glibc's chunk, 8 bytes of header rounded up to 16, at least 32.
constexpr size_t Chunk(size_t n) { return std::max<size_t>(32, (n + 8 + 15) & ~size_t{15}); }
// A std::map / std::set node holding a T (colour, three links).
template <typename T>
constexpr size_t TreeNode() {
  return Chunk(sizeof(T) + 32);
}
// A std::unordered_map node holding a T (a link and the cached hash), and its table of buckets.
template <typename T>
constexpr size_t HashNode() {
  return Chunk(sizeof(T) + 16);
}
template <typename Map>
size_t HashMap(const Map& m) {
  return m.size() * HashNode<typename Map::value_type>() + m.bucket_count() * sizeof(void*);
}
template <typename Map>
size_t TreeMap(const Map& m) {
  return m.size() * TreeNode<typename Map::value_type>();
}
// A vector's buffer (its elements' own heap not included).
template <typename T, typename A>
size_t Buffer(const std::vector<T, A>& v) {
  return v.capacity() == 0 ? 0 : Chunk(v.capacity() * sizeof(T));
}
// A string's heap buffer, if it outgrew the small-string buffer.
inline size_t Heap(const std::string& s) { return s.capacity() > 15 ? Chunk(s.capacity() + 1) : 0; }

}  // namespace streamcheck::memory
