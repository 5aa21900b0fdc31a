#include "tracer/host_threads/static_cuda_runtime.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace streamcheck::tracer {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// `prefix` then an upper-case letter: cudaMalloc, not cudaify or cuda_helper.
bool NamedLike(std::string_view name, std::string_view prefix) {
  return StartsWith(name, prefix) && name.size() > prefix.size() &&
         std::isupper(static_cast<unsigned char>(name[prefix.size()]));
}

// A read-only mapping of a whole file, unmapped when it goes.
class MappedFile {
 public:
  explicit MappedFile(const char* path) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_) munmap(const_cast<unsigned char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The `count` objects of type T at `offset`, or null where they do not fit.
  template <typename T>
  const T* At(uint64_t offset, uint64_t count = 1) const {
    if (data_ == nullptr || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    if (offset % alignof(T) != 0) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

struct SymbolTable {
  const ElfW(Sym)* symbols = nullptr;
  size_t count = 0;
  const char* names = nullptr;
  size_t names_size = 0;
};

// .symtab, which keeps hidden and local functions (all of cudart 13's), else
// .dynsym, which a stripped object keeps.
SymbolTable FindSymbols(const MappedFile& file) {
  const auto* header = file.At<ElfW(Ehdr)>(0);
  if (header == nullptr || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) ||
      (header->e_type != ET_EXEC && header->e_type != ET_DYN) || header->e_shentsize != sizeof(ElfW(Shdr)))
    return {};
  const auto* sections = file.At<ElfW(Shdr)>(header->e_shoff, header->e_shnum);
  if (sections == nullptr) return {};
  for (const uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (size_t i = 0; i < header->e_shnum; ++i) {
      const ElfW(Shdr)& s = sections[i];
      if (s.sh_type != type || s.sh_entsize != sizeof(ElfW(Sym)) || s.sh_link >= header->e_shnum) continue;
      const ElfW(Shdr)& strings = sections[s.sh_link];
      SymbolTable table;
      table.count = s.sh_size / sizeof(ElfW(Sym));
      table.symbols = file.At<ElfW(Sym)>(s.sh_offset, table.count);
      table.names = reinterpret_cast<const char*>(file.At<char>(strings.sh_offset, strings.sh_size));
      table.names_size = strings.sh_size;
      if (table.symbols != nullptr && table.names != nullptr) return table;
    }
  }
  return {};
}

std::string_view NameOf(const SymbolTable& table, const ElfW(Sym)& s) {
  if (s.st_name >= table.names_size) return {};
  const char* name = table.names + s.st_name;
  return {name, strnlen(name, table.names_size - s.st_name)};
}

bool Defined(const ElfW(Sym)& s) {
  const unsigned type = ELF64_ST_TYPE(s.st_info);
  return (type == STT_FUNC || type == STT_GNU_IFUNC) && s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE;
}

}  // namespace

RuntimeName ClassifyFunctionName(std::string_view name) {
  constexpr std::string_view kStatic = "libcudart_static_";  // cudart 13: a hash of the old name
  if (StartsWith(name, kStatic) && IsHex(name.substr(kStatic.size()))) return RuntimeName::kInternal;
  // namespace cudart (functions, const member functions) and the runtime's
  // __cudart-prefixed helpers: not a name a program takes.
  if (StartsWith(name, "_ZN6cudart") || StartsWith(name, "_ZNK6cudart") || StartsWith(name, "__cudart"))
    return RuntimeName::kInternal;
  if (NamedLike(name, "cuda") || NamedLike(name, "__cuda") || NamedLike(name, "cuos"))
    return RuntimeName::kEntryPoint;
  return RuntimeName::kOther;
}

std::vector<streamcheck_code_range> RuntimeCodeRanges(std::vector<FunctionSymbol> functions) {
  // Aliases (one function, several names) are one entry, as sure as its surest name.
  std::sort(functions.begin(), functions.end(), [](const FunctionSymbol& a, const FunctionSymbol& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end != b.end ? a.end < b.end : a.kind > b.kind;
  });
  std::vector<streamcheck_code_range> ranges;
  bool open = false;
  streamcheck_code_range run{};
  const FunctionSymbol* previous = nullptr;
  for (const FunctionSymbol& f : functions) {
    if (previous && previous->begin == f.begin && previous->end == f.end) continue;  // an alias: sorted surest first
    previous = &f;
    switch (f.kind) {
      case RuntimeName::kInternal:
        if (!open) run = {f.begin, f.end};
        run.end = std::max(run.end, f.end);
        open = true;
        break;
      case RuntimeName::kEntryPoint:
        break;  // covered if an internal function follows before any other
      case RuntimeName::kOther:
        // A function nested in the run's last one (a local label typed as a
        // function) is that function's code; any other ends the run.
        if (open && f.begin >= run.end) {
          ranges.push_back(run);
          open = false;
        }
        break;
    }
  }
  if (open) ranges.push_back(run);
  return ranges;
}

std::vector<FunctionSymbol> ReadRuntimeCandidates(const char* path, uintptr_t load_bias) {
  const MappedFile file(path);
  const SymbolTable table = FindSymbols(file);
  std::vector<FunctionSymbol> functions;
  // One pass to learn whether the runtime is here at all: most objects have
  // no internal runtime function, and their functions need not be kept.
  bool runtime = false;
  for (size_t i = 0; i < table.count && !runtime; ++i)
    runtime = Defined(table.symbols[i]) &&
              ClassifyFunctionName(NameOf(table, table.symbols[i])) == RuntimeName::kInternal;
  if (!runtime) return functions;
  for (size_t i = 0; i < table.count; ++i) {
    const ElfW(Sym)& s = table.symbols[i];
    if (!Defined(s)) continue;
    const uintptr_t begin = load_bias + s.st_value;
    functions.push_back({begin, begin + s.st_size, ClassifyFunctionName(NameOf(table, s))});
  }
  return functions;
}

}  // namespace streamcheck::tracer
