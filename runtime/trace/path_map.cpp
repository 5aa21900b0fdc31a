#include "runtime/trace/path_map.h"

#include <algorithm>

namespace streamcheck {
namespace {

// Whether `path` is `prefix` or lies under it.
bool Under(std::string_view path, std::string_view prefix) {
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || prefix.ends_with('/') || path[prefix.size()] == '/';
}

void MapFrames(const PathMap& map, std::vector<ResolvedFrame>* frames) {
  for (ResolvedFrame& f : *frames)
    if (!f.file.empty()) f.file = map.Map(f.file);
}

void MapAccess(const PathMap& map, FindingAccess* a) {
  MapFrames(map, &a->stack);
  MapFrames(map, &a->stream_origin.created_at);
  MapFrames(map, &a->stream_origin.first_used_at);
  MapFrames(map, &a->event_origin.created_at);
  MapFrames(map, &a->event_origin.first_used_at);
}

}  // namespace

bool PathMap::Add(std::string_view spec, std::string* error) {
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    *error = "'" + std::string(spec) + "' is not OLD=NEW (OLD may not be empty)";
    return false;
  }
  Pair pair{std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1))};
  // "/a/b/" and "/a/b" are the same folder.
  while (pair.old_prefix.size() > 1 && pair.old_prefix.ends_with('/')) pair.old_prefix.pop_back();
  for (const Pair& p : pairs_)
    if (p.old_prefix == pair.old_prefix) {
      *error = "'" + pair.old_prefix + "' is mapped twice";
      return false;
    }
  pairs_.push_back(std::move(pair));
  std::stable_sort(pairs_.begin(), pairs_.end(),
                   [](const Pair& a, const Pair& b) { return a.old_prefix.size() > b.old_prefix.size(); });
  return true;
}

std::string PathMap::Map(std::string_view path) const {
  for (const Pair& p : pairs_) {
    if (!Under(path, p.old_prefix)) continue;
    std::string_view rest = path.substr(p.old_prefix.size());
    // An empty NEW leaves the rest relative, without its leading '/'.
    if (p.new_prefix.empty() || p.new_prefix.ends_with('/'))
      while (rest.starts_with('/')) rest.remove_prefix(1);
    if (p.new_prefix.empty() && rest.empty()) return ".";
    return p.new_prefix + std::string(rest);
  }
  return std::string(path);
}

void PathMap::Apply(Finding* finding) const {
  if (empty()) return;
  for (FindingAccess& a : finding->accesses) MapAccess(*this, &a);
  for (FindingAccess& a : finding->syncs) MapAccess(*this, &a);
  MapFrames(*this, &finding->buffer.allocation_stack);
}

void PathMap::Apply(TraceRecord* record) const {
  if (record->op == OpCode::kDefineString && !empty()) record->text = Map(record->text);
}

}  // namespace streamcheck
