#include "store/enum_names.h"

namespace streamcheck::store {
namespace {

// The runtime owns the names; scanning the small value range keeps one list.
template <typename Enum, typename NameOf>
Enum FromName(std::string_view name, Enum fallback, NameOf name_of) {
  if (name == name_of(static_cast<Enum>(255))) return fallback;  // the "unknown value" name
  for (int value = 0; value < 64; ++value) {
    Enum e = static_cast<Enum>(value);
    if (name_of(e) == name) return e;
  }
  return fallback;
}

}  // namespace

FindingKind FindingKindFromName(std::string_view name, FindingKind fallback) {
  return FromName(name, fallback, FindingKindName);
}

Confidence ConfidenceFromName(std::string_view name, Confidence fallback) {
  return FromName(name, fallback, ConfidenceName);
}

std::string_view OriginName(FindingOrigin origin) {
  return origin == FindingOrigin::kStatic ? "static" : "dynamic";
}

FindingOrigin OriginFromName(std::string_view name) {
  return name == "static" ? FindingOrigin::kStatic : FindingOrigin::kDynamic;
}

}  // namespace streamcheck::store
