// Read-only access to the rule catalogue declared in rules/rules.def.
#pragma once

#include <span>
#include <string_view>

namespace streamcheck::rules {

enum class Severity { kError, kWarning, kNote };
enum class Halves { kDynamic, kStatic, kBoth };

enum class RuleId {
#define STREAMCHECK_RULE(enumerator, id, severity, halves, summary, fix) enumerator,
#include "rules/rules.def"
#undef STREAMCHECK_RULE
};

struct Rule {
  RuleId rule;
  std::string_view id;
  Severity severity;
  Halves halves;
  std::string_view summary;
  std::string_view fix_hint;
  std::string_view documentation;  // the Markdown page rules/docs/<id>.md
};

std::span<const Rule> AllRules();
const Rule& Get(RuleId rule);
// nullptr when no rule has this id.
const Rule* Find(std::string_view id);
std::string_view SeverityName(Severity s);
std::string_view HalvesName(Halves h);

}  // namespace streamcheck::rules
