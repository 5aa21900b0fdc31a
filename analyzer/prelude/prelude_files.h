// The lint's own headers (this folder), compiled into streamcheck-lint by
// analyzer/CMakeLists.txt and served to clang from memory under kPreludeDir,
// so the executable needs no files installed beside it.
#pragma once

#include <vector>

namespace streamcheck::lint {

struct PreludeFile {
  const char* path;  // relative to kPreludeDir
  const char* text;
};

const std::vector<PreludeFile>& PreludeFiles();

}  // namespace streamcheck::lint
