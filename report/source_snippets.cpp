#include "report/source_snippets.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace streamcheck::report {
namespace {

// Past this much text kept, the cache starts again (memory stays bounded on
// reports whose stacks name thousands of files).
constexpr uint64_t kMaxCachedBytes = 32u << 20;

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? resolved : "";
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
  std::vector<std::string> candidates;
  if (file.front() == '/') {
    candidates.push_back(file);
    // Trailing components, longest first: "a/b/c.py", "b/c.py", "c.py".
    for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1))
      for (const std::string& root : roots_) candidates.push_back(root + file.substr(slash + 1));
  } else {
    for (const std::string& root : roots_) candidates.push_back(root + file);
  }
  for (const std::string& candidate : candidates) {
    const std::string real = RealPath(candidate);
    if (real.empty() || UnderSystemFolder(real)) continue;
    for (const std::string& root : roots_)
      if (real.rfind(root, 0) == 0) return real;
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
