#include "cli/install_paths.h"

#include <cstdlib>
#include <filesystem>

#include "tracer/environment.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

std::string FirstExisting(std::initializer_list<fs::path> candidates) {
  std::error_code ec;
  for (const fs::path& candidate : candidates)
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  return "";
}

}  // namespace

std::string OwnDirectory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : self.parent_path().string();
}

std::string FindInstalledPart(const std::string& file, const std::string& build_folder) {
  const fs::path own = OwnDirectory();
  if (own.empty()) return "";
  return FirstExisting({own.parent_path() / "lib" / "streamcheck" / file, own.parent_path() / build_folder / file});
}

std::string FindTracer() {
  if (TracerChosenByEnvironment()) return std::getenv(environment::kTracerLib);
  return FindInstalledPart("libstreamcheck_tracer.so", "tracer");
}

bool TracerChosenByEnvironment() {
  const char* env = std::getenv(environment::kTracerLib);
  return env != nullptr && *env != '\0';
}

}  // namespace streamcheck::cli
