#include "report/source_snippets.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>

namespace streamcheck::report {
namespace {

// Past this much text kept, the cache starts again (memory stays bounded on
// reports whose stacks name thousands of files).
constexpr uint64_t kMaxCachedBytes = 32u << 20;

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? resolved : "";
}

// Source files by their extension, compared in lower case (.C, .H, .S too).
bool IsSourceFile(const std::string& path) {
  static const std::set<std::string> kSourceExtensions = {
      "c",   "cc",  "cpp", "cxx", "c++", "cp",  "h",  "hh",  "hpp", "hxx", "h++", "inl", "ipp", "tpp", "tcc",
      "cu",  "cuh", "cuf", "ptx", "py",  "pyx", "pxd", "pyi", "f",   "f90", "f95", "f03", "for", "cl",  "rs",
      "go",  "java", "jl", "m",   "mm",  "s",   "asm"};
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
  std::string extension = path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kSourceExtensions.count(extension) != 0;
}

// Whether a component of `path` (from `from` on) is hidden: `.env`, `.git/`,
// `.ssh/` (`.` and `..` are not). Never quoted, whatever the extension.
bool HasHiddenComponent(const std::string& path, size_t from = 0) {
  size_t at = from;
  while (at < path.size()) {
    const size_t end = std::min(path.find('/', at), path.size());
    const std::string_view component(path.data() + at, end - at);
    if (!component.empty() && component.front() == '.' && component != "." && component != "..") return true;
    at = end + 1;
  }
  return false;
}

bool UnderSystemFolder(const std::string& path) {
  for (const char* system : {"/proc/", "/sys/", "/dev/"})
    if (path.rfind(system, 0) == 0) return true;
  return false;
}

// The file's lines, or nothing when it is not a regular text file of a
// bounded size. Opened without following a last symlink (its real path was
// checked, so one here means the file was swapped meanwhile).
std::vector<std::string> ReadLines(const std::string& real_path) {
  const int fd = ::open(real_path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat info {};
  std::string text;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) <= kMaxSourceFileBytes) {
    text.resize(static_cast<size_t>(info.st_size));
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (text.find('\0') != std::string::npos) return {};  // not text
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

SourceSnippets::SourceSnippets(const std::vector<std::string>& roots) {
  for (const std::string& root : roots) {
    const std::string real = RealPath(root);
    if (real.empty() || real == "/" || UnderSystemFolder(real + "/")) continue;
    roots_.push_back(real + "/");
  }
}

std::string SourceSnippets::AllowedPath(const std::string& file) const {
  if (file.empty()) return {};
  // The path as named and the part of it looked for under a root: neither
  // may name a hidden file or folder (a link `src/.env` to a source file
  // included), beside the real path's own check below.
  std::vector<std::pair<std::string, std::string>> candidates;  // path, the part named
  if (file.front() == '/') {
    candidates.emplace_back(file, file);
    // Trailing components, longest first: "a/b/c.py", "b/c.py", "c.py".
    for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1))
      for (const std::string& root : roots_) candidates.emplace_back(root + file.substr(slash + 1), file.substr(slash + 1));
  } else {
    for (const std::string& root : roots_) candidates.emplace_back(root + file, file);
  }
  for (const auto& [candidate, named] : candidates) {
    if (HasHiddenComponent(named)) continue;
    const std::string real = RealPath(candidate);
    if (real.empty() || UnderSystemFolder(real) || !IsSourceFile(real)) continue;
    for (const std::string& root : roots_)
      if (real.rfind(root, 0) == 0 && !HasHiddenComponent(real, root.size())) return real;
  }
  return {};
}

const std::vector<std::string>& SourceSnippets::Lines(const std::string& file) {
  auto it = files_.find(file);
  if (it == files_.end()) {
    if (cached_bytes_ > kMaxCachedBytes) {
      files_.clear();
      cached_bytes_ = 0;
    }
    const std::string real = AllowedPath(file);
    std::vector<std::string> lines = real.empty() ? std::vector<std::string>() : ReadLines(real);
    for (const std::string& l : lines) cached_bytes_ += l.size() + 32;
    it = files_.emplace(file, std::move(lines)).first;
  }
  return it->second;
}

std::string SourceSnippets::Line(const std::string& file, uint32_t line) {
  if (file.empty() || line == 0) return {};
  const std::vector<std::string>& lines = Lines(file);
  return line <= lines.size() ? lines[line - 1] : std::string();
}

std::vector<std::pair<uint32_t, std::string>> SourceSnippets::Context(const std::string& file, uint32_t line,
                                                                      uint32_t radius) {
  std::vector<std::pair<uint32_t, std::string>> out;
  if (file.empty() || line == 0) return out;
  const std::vector<std::string>& lines = Lines(file);
  if (line > lines.size()) return out;
  const uint32_t first = line > radius ? line - radius : 1;
  const uint32_t last = std::min<uint64_t>(lines.size(), uint64_t{line} + radius);
  for (uint32_t n = first; n <= last; ++n) out.emplace_back(n, lines[n - 1]);
  return out;
}

}  // namespace streamcheck::report
