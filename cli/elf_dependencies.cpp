#include "cli/elf_dependencies.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/child_process.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> SplitPath(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) out.push_back(part);
  return out;
}

template <typename T>
bool ReadAt(std::ifstream& in, uint64_t offset, T* out, size_t count = 1) {
  in.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(sizeof(T) * count)));
}

}  // namespace

bool ReadElfDependencies(const std::string& path, ElfDependencies* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!ReadAt(in, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr)) {
    *error = path + " is not a 64-bit ELF file";
    return false;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (sections.empty() || !ReadAt(in, header.e_shoff, sections.data(), sections.size())) {
    *error = path + ": cannot read its section headers";
    return false;
  }
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_DYNAMIC || section.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[section.sh_link];
    std::string table(strings.sh_size, '\0');
    std::vector<Elf64_Dyn> entries(section.sh_size / sizeof(Elf64_Dyn));
    if (!ReadAt(in, strings.sh_offset, table.data(), table.size()) ||
        !ReadAt(in, section.sh_offset, entries.data(), entries.size())) {
      *error = path + ": cannot read its dynamic section";
      return false;
    }
    const auto text = [&table](uint64_t offset) {
      return offset < table.size() ? std::string(table.c_str() + offset) : std::string();
    };
    const std::string origin = fs::path(path).parent_path().string();
    for (const Elf64_Dyn& entry : entries) {
      if (entry.d_tag == DT_NEEDED) out->needed.push_back(text(entry.d_un.d_val));
      if (entry.d_tag != DT_RUNPATH && entry.d_tag != DT_RPATH) continue;
      for (std::string dir : SplitPath(text(entry.d_un.d_val))) {
        for (const char* token : {"$ORIGIN", "${ORIGIN}"})
          if (const size_t at = dir.find(token); at != std::string::npos) dir.replace(at, std::strlen(token), origin);
        out->run_path.push_back(dir);
      }
    }
  }
  return true;
}

std::string ResolveNeeded(const std::string& needed, const ElfDependencies& deps) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("LD_LIBRARY_PATH")) dirs = SplitPath(env);
  dirs.insert(dirs.end(), deps.run_path.begin(), deps.run_path.end());
  std::error_code ec;
  for (const std::string& dir : dirs)
    if (fs::exists(fs::path(dir) / needed, ec)) return fs::canonical(fs::path(dir) / needed, ec).string();
  const ChildResult found = ProbeInChild(
      [&needed](std::string* out) {
        void* handle = dlopen(needed.c_str(), RTLD_LAZY | RTLD_LOCAL);
        link_map* map = nullptr;
        if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return 1;
        *out = map->l_name;
        return 0;
      },
      10);
  return found.finished && found.exit_code == 0 ? found.output : "";
}

}  // namespace streamcheck::cli
