#include "runtime/finding.h"

#include "rules/catalogue.h"

namespace streamcheck {

std::string_view FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kReadAfterWrite: return "read-after-write";
    case FindingKind::kWriteAfterRead: return "write-after-read";
    case FindingKind::kWriteAfterWrite: return "write-after-write";
    case FindingKind::kUseAfterFree: return "use-after-free";
    case FindingKind::kFreeWhileInUse: return "free-while-in-use";
    case FindingKind::kUseBeforeAlloc: return "use-before-allocation";
    case FindingKind::kUnrecordedEventWait: return "unrecorded-event-wait";
    case FindingKind::kPageableAsyncCopy: return "pageable-async-copy";
    case FindingKind::kUnsynchronizedTiming: return "unsynchronized-timing";
    case FindingKind::kDefaultStreamUse: return "default-stream-use";
  }
  return "unknown";
}

std::string_view ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kCertain: return "certain";
    case Confidence::kLikely: return "likely";
    case Confidence::kPossible: return "possible";
  }
  return "unknown";
}

std::string_view SeverityOf(const Finding& f) {
  const rules::Rule* rule = rules::Find(f.rule);
  if (rule == nullptr) return "warning";
  const rules::Severity severity =
      f.at_most_warning && rule->severity == rules::Severity::kError ? rules::Severity::kWarning : rule->severity;
  return rules::SeverityName(severity);
}

}  // namespace streamcheck
