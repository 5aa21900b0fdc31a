// Which source lines the HTML report may quote. A stack frame names a file,
// and the report is made on whatever machine runs it: quoting any file named
// would put /proc/self/environ, /etc/passwd or a key into a page meant to be
// shared. So a line is quoted only from a regular text file that is a source
// file by its extension, hidden neither itself nor by a folder below its
// root (`.env`, `.git/`), and whose real path (symlinks resolved) lies under
// one of the source roots: those the run
// recorded (its working directory, the folders of the program's own source
// files: run_session.h) and those `--source-root` adds. Never from /proc,
// /sys or /dev, never from a root of "/", never from a file over
// kMaxSourceFileBytes or holding a NUL byte. docs/REPORT.md says the same.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace streamcheck::report {

inline constexpr uint64_t kMaxSourceFileBytes = 4u << 20;

class SourceSnippets {
 public:
  explicit SourceSnippets(const std::vector<std::string>& roots);
  // The line's text, or "" when the file is not allowed or has no such line.
  std::string Line(const std::string& file, uint32_t line);
  // Lines line-radius .. line+radius (those that exist), numbered; empty when
  // the file may not be quoted or has no such line.
  std::vector<std::pair<uint32_t, std::string>> Context(const std::string& file, uint32_t line, uint32_t radius);
  // The real path of `file` when a line of it may be quoted, else "". An
  // absolute path that is not under a root (a run recorded on another
  // machine) is also looked for under each root by its trailing components:
  // /ci/work/app/train.py is found as train.py or app/train.py under a root.
  std::string AllowedPath(const std::string& file) const;

 private:
  const std::vector<std::string>& Lines(const std::string& file);

  std::vector<std::string> roots_;  // real paths, each ending in '/'
  std::map<std::string, std::vector<std::string>> files_;
  uint64_t cached_bytes_ = 0;
};

}  // namespace streamcheck::report
