#include "analyzer/compile_db.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyzer/compile_flags.h"

namespace streamcheck::lint {
namespace fs = std::filesystem;

std::optional<CompileDatabase> LoadCompileDatabase(const std::string& build_dir, std::string* error) {
  fs::path path = build_dir;
  std::error_code ec;
  if (fs::is_directory(path, ec)) path /= "compile_commands.json";
  std::ifstream in(path);
  if (!in) {
    *error = path.string() + ": cannot read the compile database (configure the build with "
                             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or pass files with `-- FLAGS`)";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return ParseCompileDatabase(text.str(), path.string(), error);
}

std::optional<CompileDatabase> ParseCompileDatabase(const std::string& text, const std::string& path,
                                                    std::string* error) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    *error = path + ": not valid JSON: " + e.what();
    return std::nullopt;
  }
  if (!json.is_array()) {
    *error = path + ": expected a JSON array of compile commands";
    return std::nullopt;
  }
  CompileDatabase db{path, {}};
  for (size_t i = 0; i < json.size(); ++i) {
    const nlohmann::json& e = json[i];
    const std::string where = path + ": entry " + std::to_string(i + 1);
    if (!e.is_object()) {
      *error = where + ": expected an object";
      return std::nullopt;
    }
    CompileEntry entry;
    if (!e.contains("directory") || !e["directory"].is_string() || !e.contains("file") ||
        !e["file"].is_string()) {
      *error = where + ": needs string fields \"directory\" and \"file\"";
      return std::nullopt;
    }
    entry.directory = e["directory"].get<std::string>();
    fs::path file = e["file"].get<std::string>();
    if (file.is_relative()) file = fs::path(entry.directory) / file;
    entry.file = file.lexically_normal().string();
    if (e.contains("arguments")) {
      if (!e["arguments"].is_array()) {
        *error = where + ": \"arguments\" must be an array of strings";
        return std::nullopt;
      }
      for (const nlohmann::json& a : e["arguments"]) {
        if (!a.is_string()) {
          *error = where + ": \"arguments\" must be an array of strings";
          return std::nullopt;
        }
        entry.argv.push_back(a.get<std::string>());
      }
    } else if (e.contains("command") && e["command"].is_string()) {
      entry.argv = SplitCommandLine(e["command"].get<std::string>());
    } else {
      *error = where + ": needs \"command\" (a string) or \"arguments\" (an array)";
      return std::nullopt;
    }
    if (entry.argv.empty()) {
      *error = where + ": empty command";
      return std::nullopt;
    }
    db.entries.push_back(std::move(entry));
  }
  return db;
}

std::vector<CompileEntry> SelectEntries(const CompileDatabase& db, const std::vector<std::string>& files,
                                        std::vector<std::string>* missing) {
  std::vector<CompileEntry> out;
  if (files.empty()) {
    // A file several targets compile (a shared common.cu) is one file to lint:
    // its first command, as run-clang-tidy and clangd take it.
    std::set<std::string> seen;
    for (const CompileEntry& e : db.entries) {
      if (seen.insert(e.file).second) out.push_back(e);
    }
    return out;
  }
  for (const std::string& f : files) {
    std::error_code ec;
    const std::string absolute = fs::absolute(f, ec).lexically_normal().string();
    bool found = false;
    for (const CompileEntry& e : db.entries) {
      const bool suffix = e.file.size() > f.size() && e.file.compare(e.file.size() - f.size(), f.size(), f) == 0 &&
                          e.file[e.file.size() - f.size() - 1] == '/';
      if (e.file == absolute || suffix) {
        out.push_back(e);
        found = true;
        break;
      }
    }
    if (!found) missing->push_back(f);
  }
  return out;
}

}  // namespace streamcheck::lint
