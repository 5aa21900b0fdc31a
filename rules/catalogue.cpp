#include "rules/catalogue.h"

#include <array>

#include "rules/rule_docs.h"  // generated: one string_view per rule page

namespace streamcheck::rules {
namespace {

constexpr std::array kRules = {
#define STREAMCHECK_RULE(enumerator, id, severity, halves, summary, fix) \
  Rule{RuleId::enumerator, id, Severity::k##severity, Halves::k##halves, summary, fix, {}},
#include "rules/rules.def"
#undef STREAMCHECK_RULE
};

std::array<Rule, kRules.size()> WithDocs() {
  std::array<Rule, kRules.size()> rules = kRules;
  for (Rule& r : rules) r.documentation = RuleDocumentation(r.id);
  return rules;
}

const std::array<Rule, kRules.size()>& Table() {
  static const auto table = WithDocs();
  return table;
}

}  // namespace

std::span<const Rule> AllRules() { return Table(); }

const Rule& Get(RuleId rule) { return Table()[static_cast<size_t>(rule)]; }

const Rule* Find(std::string_view id) {
  for (const Rule& r : Table())
    if (r.id == id) return &r;
  return nullptr;
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "?";
}

std::string_view HalvesName(Halves h) {
  switch (h) {
    case Halves::kDynamic: return "dynamic";
    case Halves::kStatic: return "static";
    case Halves::kBoth: return "dynamic+static";
  }
  return "?";
}

}  // namespace streamcheck::rules
