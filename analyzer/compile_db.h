// compile_commands.json, read without LLVM so that a broken database gives a
// message that names the file, the entry and what is wrong.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streamcheck::lint {

struct CompileEntry {
  std::string directory;          // absolute working directory of the command
  std::string file;               // absolute path of the source file
  std::vector<std::string> argv;  // the command as the build system gave it
};

struct CompileDatabase {
  std::string path;  // the compile_commands.json read
  std::vector<CompileEntry> entries;
};

// `build_dir` may be the directory or the json file itself. nullopt with
// `error` set when the file is missing, not JSON, or an entry lacks
// "directory"/"file"/"command"|"arguments".
std::optional<CompileDatabase> LoadCompileDatabase(const std::string& build_dir, std::string* error);
std::optional<CompileDatabase> ParseCompileDatabase(const std::string& text, const std::string& path,
                                                    std::string* error);

// The entries to lint: those for `files` (matched by absolute path, or by path
// suffix so `src/a.cu` works), or every file's first entry when `files` is
// empty (a file several targets compile is linted once). Files with no entry
// are reported through `missing`.
std::vector<CompileEntry> SelectEntries(const CompileDatabase& db, const std::vector<std::string>& files,
                                        std::vector<std::string>* missing);

}  // namespace streamcheck::lint
