#include "store/file_identity.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

namespace streamcheck::store {
namespace {

struct Place {
  dev_t folder_dev = 0;
  ino_t folder_ino = 0;
  std::string name;
  bool known = false;
};

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string NameOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The folder (by identity) and name a write to `path` lands in: an existing
// path's real one (symlinks followed, as a write follows them), else its
// folder's and its own name.
Place PlaceOf(const std::string& path) {
  char resolved[PATH_MAX];
  const std::string real = ::realpath(path.c_str(), resolved) ? resolved : path;
  Place place;
  struct stat folder {};
  if (::stat(FolderOf(real).c_str(), &folder) != 0) return place;
  place.folder_dev = folder.st_dev;
  place.folder_ino = folder.st_ino;
  place.name = NameOf(real);
  place.known = !place.name.empty();
  return place;
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool IsDatabaseFile(const std::string& db, const std::string& path) {
  if (db.empty() || path.empty()) return false;
  if (SameFile(db, path)) return true;
  for (const char* suffix : kDatabaseSideSuffixes)
    if (SameFile(db + suffix, path)) return true;
  const Place database = PlaceOf(db), target = PlaceOf(path);
  if (!database.known || !target.known) return false;
  if (database.folder_dev != target.folder_dev || database.folder_ino != target.folder_ino) return false;
  if (target.name == database.name) return true;
  for (const char* suffix : kDatabaseSideSuffixes)
    if (target.name == database.name + suffix) return true;
  return false;
}

}  // namespace streamcheck::store
