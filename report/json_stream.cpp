#include "report/json_stream.h"

namespace streamcheck::report {

std::string DumpJson(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

JsonArrayStream::JsonArrayStream(std::ostream& out, const nlohmann::json& skeleton, const std::string& key)
    : out_(out) {
  const std::string document = DumpJson(skeleton);
  // Inside a string every quote is escaped, so `"key": null` can only be the
  // key itself.
  const std::string marker = "\"" + key + "\": null";
  const size_t at = document.find(marker);
  const size_t line_start = document.rfind('\n', at) + 1;  // npos + 1 == 0
  indent_.assign(at - line_start, ' ');
  const size_t value = at + marker.size() - 4;
  out_.write(document.data(), static_cast<std::streamsize>(value));
  suffix_ = document.substr(value + 4);
}

void JsonArrayStream::Add(const nlohmann::json& element) {
  const std::string inner = indent_ + "  ";
  std::string text = DumpJson(element);
  // Its own lines indented one level deeper than the key (strings hold no raw
  // newline: JSON escapes it).
  std::string indented;
  indented.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    indented.push_back(c);
    if (c == '\n') indented += inner;
  }
  out_ << (count_++ == 0 ? "[\n" : ",\n") << inner << indented;
}

void JsonArrayStream::Finish() {
  if (count_ == 0) out_ << "[]";
  else out_ << "\n" << indent_ << "]";
  out_ << suffix_ << "\n";
}

}  // namespace streamcheck::report
