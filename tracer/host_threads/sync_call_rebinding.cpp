#include "tracer/host_threads/sync_call_rebinding.h"

#include <elf.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace streamcheck::tracer {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT, kGlobalData = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobalData = R_AARCH64_GLOB_DAT;
#else
constexpr uint32_t kJumpSlot = ~0u, kGlobalData = ~0u;  // no rewriting: the interposers' check stays
#endif

// What the object's dynamic section says of its imports.
struct Imports {
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  size_t names_size = 0;
  const ElfW(Rela)* plt = nullptr;  // the jump slots, called through the PLT
  size_t plt_bytes = 0;
  const ElfW(Rela)* data = nullptr;  // other relocations: GOT entries whose address the code loads
  size_t data_bytes = 0;
  bool plt_is_rela = true;
};

// A GOT entry to rewrite and the function it gets.
struct Rebinding {
  void** entry;
  void* function;
};

Imports ReadImports(const ElfW(Dyn)* dynamic, uintptr_t base) {
  // The loader relocates these addresses in the dynamic section itself on
  // most targets; where it does not, they are offsets from the base.
  auto address = [base](ElfW(Addr) value) { return value < base ? value + base : value; };
  Imports imports;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: imports.symbols = reinterpret_cast<const ElfW(Sym)*>(address(d->d_un.d_ptr)); break;
      case DT_STRTAB: imports.names = reinterpret_cast<const char*>(address(d->d_un.d_ptr)); break;
      case DT_STRSZ: imports.names_size = d->d_un.d_val; break;
      case DT_JMPREL: imports.plt = reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr)); break;
      case DT_PLTRELSZ: imports.plt_bytes = d->d_un.d_val; break;
      case DT_PLTREL: imports.plt_is_rela = d->d_un.d_val == DT_RELA; break;
      case DT_RELA: imports.data = reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr)); break;
      case DT_RELASZ: imports.data_bytes = d->d_un.d_val; break;
      default: break;
    }
  }
  return imports;
}

void CollectRebindings(const Imports& imports, const ElfW(Rela)* relocations, size_t bytes, uintptr_t base,
                       RealSyncFunction real, std::vector<Rebinding>& out) {
  if (relocations == nullptr) return;
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = relocations[i];
    const uint32_t type = ELF64_R_TYPE(r.r_info);
    if (type != kJumpSlot && type != kGlobalData) continue;
    const ElfW(Sym)& symbol = imports.symbols[ELF64_R_SYM(r.r_info)];
    // The object's own definition of such a name (none is expected) is its business.
    if (symbol.st_shndx != SHN_UNDEF || symbol.st_name >= imports.names_size) continue;
    if (void* function = real(imports.names + symbol.st_name))
      out.push_back({reinterpret_cast<void**>(base + r.r_offset), function});
  }
}

// Whether every page of [begin, end) is mapped and none writable, as
// /proc/self/maps says: the loader applied RELRO. An object another thread
// is still loading is listed by dl_iterate_phdr before it is relocated; its
// RELRO part is still writable then, and making it read-only would crash the
// loader's next relocation.
bool ReadOnlyNow(uintptr_t begin, uintptr_t end) {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  uintptr_t covered = begin;
  bool writable = false;
  char line[512];
  while (covered < end && !writable && std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long low = 0, high = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &low, &high, perms) != 3 || high <= covered || low >= end) continue;
    if (low > covered) break;  // a hole
    writable = perms[1] == 'w';
    covered = high;
  }
  std::fclose(maps);
  return !writable && covered >= end;
}

}  // namespace

int RebindSyncCalls(const dl_phdr_info& object, RealSyncFunction real, bool* left_some) {
  if (left_some != nullptr) *left_some = false;
  if (kJumpSlot == ~0u || real == nullptr) return 0;
  const uintptr_t base = object.dlpi_addr;
  const ElfW(Dyn)* dynamic = nullptr;
  uintptr_t relro_begin = 0, relro_end = 0;
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = object.dlpi_phdr[i];
    if (p.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + p.p_vaddr);
    if (p.p_type == PT_GNU_RELRO) relro_begin = base + p.p_vaddr, relro_end = relro_begin + p.p_memsz;
  }
  if (dynamic == nullptr) return 0;
  const Imports imports = ReadImports(dynamic, base);
  if (imports.symbols == nullptr || imports.names == nullptr) return 0;
  std::vector<Rebinding> rebindings;
  if (imports.plt_is_rela) CollectRebindings(imports, imports.plt, imports.plt_bytes, base, real, rebindings);
  CollectRebindings(imports, imports.data, imports.data_bytes, base, real, rebindings);
  if (rebindings.empty()) return 0;

  // The loader made the whole pages of the RELRO part read-only (a partial
  // last page stays writable); entries there are written with those pages
  // writable for the moment. Other threads may call through an entry
  // meanwhile: each is one aligned pointer, read whole, old or new. The
  // system call itself, not libc's mprotect: the preloaded library tells
  // the host guards of the program's protection changes, and this is none.
  auto protect = [](uintptr_t begin, uintptr_t end, int prot) {
    return syscall(SYS_mprotect, begin, end - begin, prot) == 0;
  };
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t locked_begin = relro_begin & ~(page - 1), locked_end = relro_end & ~(page - 1);
  auto locked = [&](const Rebinding& r) {
    const auto at = reinterpret_cast<uintptr_t>(r.entry);
    return at >= locked_begin && at < locked_end;
  };
  // Entries in a part the loader has not locked yet are left alone: that
  // object is still being loaded, and its relocation would write them anew.
  const bool any_locked = std::any_of(rebindings.begin(), rebindings.end(), locked);
  const bool unlocked = any_locked && ReadOnlyNow(locked_begin, locked_end) &&
                        protect(locked_begin, locked_end, PROT_READ | PROT_WRITE);
  int rewritten = 0;
  for (const Rebinding& r : rebindings) {
    if (locked(r) && !unlocked) continue;  // left to the interposers' check
    __atomic_store_n(r.entry, r.function, __ATOMIC_RELAXED);
    ++rewritten;
  }
  if (unlocked) protect(locked_begin, locked_end, PROT_READ);
  if (left_some != nullptr) *left_some = rewritten < static_cast<int>(rebindings.size());
  return rewritten;
}

}  // namespace streamcheck::tracer
