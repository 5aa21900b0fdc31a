// Writing a JSON document whose one big array is streamed: the document's
// small parts are built as nlohmann::json, the array's elements are written
// one at a time as they come. The bytes are exactly what dump(2) of the whole
// document would give (the keys of an object sorted), so streaming changed no
// report; invalid UTF-8 in any string becomes U+FFFD instead of an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace streamcheck::report {

// nlohmann's dump(2) that never throws on invalid UTF-8.
std::string DumpJson(const nlohmann::json& value, int indent = 2);

class JsonArrayStream {
 public:
  // `skeleton` holds `key` (once, anywhere) with the value null: the array
  // goes there.
  JsonArrayStream(std::ostream& out, const nlohmann::json& skeleton, const std::string& key);
  void Add(const nlohmann::json& element);
  // Closes the array and writes the rest of the document (and a newline).
  void Finish();

 private:
  std::ostream& out_;
  std::string suffix_;
  std::string indent_;  // of the line holding the key
  size_t count_ = 0;
};

}  // namespace streamcheck::report
