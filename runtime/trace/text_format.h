// The text form of one record: `op key=value ...` on one line. Shared by the
// text reader, the text writer and ParseTextTrace/FormatTextTrace.
//
// String references (api, name, framework_op, frame functions and files) may
// be written as string literals. Both sides resolve a literal through the same
// StringNames table, built from the define_string records seen so far, which
// is what makes text -> records -> text exact.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::trace_internal {

class StringNames {
 public:
  // Applies a define_string record: id -> text, and text -> id unless the
  // text already has an id (the first definition of a text wins).
  void Define(StringId id, const std::string& text);
  // The id a literal resolves to; 0 when the text was never defined.
  StringId IdOf(std::string_view text) const;
  // The text of `id` when writing it as a literal reads back as `id`.
  const std::string* LiteralFor(StringId id) const;
  StringId NextFreeId() const { return max_id_ + 1; }

 private:
  std::unordered_map<StringId, std::string> text_of_;
  std::unordered_map<std::string, StringId> id_of_;
  StringId max_id_ = 0;
};

// Appends the line for `record` (with '\n') and applies it to *names.
void FormatRecordLine(const TraceRecord& record, StringNames* names, std::string* out);

// Appends `text` as a quoted C-style string literal.
void AppendQuoted(std::string_view text, std::string* out);

struct TextParseError {
  size_t column = 0;  // 1-based
  std::string message;
};

// Parses one line (without its '\n'). Appends the records it yields to *out:
// a define_string record for each string literal never defined before, then
// the record itself; nothing for a blank or comment line.
bool ParseRecordLine(std::string_view line, StringNames* names, std::vector<TraceRecord>* out,
                     TextParseError* error);

}  // namespace streamcheck::trace_internal
