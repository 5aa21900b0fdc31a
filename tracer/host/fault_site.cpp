#include "tracer/host/fault_site.h"

#include <link.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

namespace streamcheck::tracer::host {
namespace {

// One decoded instruction: what its memory operand reads or writes.
struct MemoryOperand {
  uint64_t width = 0;
  bool has_address = false;  // the ModRM form gave an address we can compute
  uint64_t address = 0;
  bool atomic = false;       // a locked read-modify-write (lock prefix, or xchg with memory)
};

// x86-64 general registers by number (REX-extended), from the saved context.
uint64_t Register(const ucontext_t* uc, unsigned n) {
  static constexpr int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  return static_cast<uint64_t>(uc->uc_mcontext.gregs[kGreg[n & 15]]);
}

struct Prefixes {
  bool operand16 = false, f2 = false, f3 = false, segment = false, lock = false;
  bool rex_w = false, rex_r = false, rex_x = false, rex_b = false;
};

// The address a ModRM (and SIB, displacement) operand names; false for a
// register operand or a RIP-relative one (never host data a device touches).
bool OperandAddress(const uint8_t* modrm, const Prefixes& pre, const ucontext_t* uc, uint64_t* address) {
  const unsigned mod = modrm[0] >> 6, rm = modrm[0] & 7;
  if (mod == 3) return false;
  const uint8_t* next = modrm + 1;
  uint64_t ea = 0;
  unsigned base = rm;
  bool has_base = true;
  if (rm == 4) {  // SIB
    const uint8_t sib = *next++;
    const unsigned scale = sib >> 6, index = ((sib >> 3) & 7) | (pre.rex_x ? 8 : 0);
    base = sib & 7;
    if (index != 4) ea += Register(uc, index) << scale;
    if (base == 5 && mod == 0) has_base = false, ea += static_cast<int64_t>(static_cast<int32_t>(
                                                       next[0] | next[1] << 8 | next[2] << 16 | uint32_t(next[3]) << 24));
  } else if (rm == 5 && mod == 0) {
    return false;  // RIP-relative
  }
  if (has_base) ea += Register(uc, base | (pre.rex_b ? 8 : 0));
  if (mod == 1) ea += static_cast<int64_t>(static_cast<int8_t>(next[0]));
  if (mod == 2)
    ea += static_cast<int64_t>(static_cast<int32_t>(next[0] | next[1] << 8 | next[2] << 16 | uint32_t(next[3]) << 24));
  *address = ea;
  return true;
}

// The width of a VEX-encoded move's memory operand (map 0F), or 0.
uint64_t VexMoveWidth(uint8_t opcode, unsigned pp, bool l256) {
  const uint64_t vector = l256 ? 32 : 16;
  switch (opcode) {
    case 0x10:
    case 0x11:  // vmovups/upd, vmovss (pp 2), vmovsd (pp 3)
      return pp == 2 ? 4 : pp == 3 ? 8 : vector;
    case 0x28:
    case 0x29:  // vmovaps/apd
      return vector;
    case 0x6F:
    case 0x7F:  // vmovdqa (pp 1), vmovdqu (pp 2)
      return pp == 1 || pp == 2 ? vector : 0;
    default:
      return 0;
  }
}

// The width of a legacy-encoded instruction's memory operand, or 0.
uint64_t LegacyWidth(const uint8_t* op, const Prefixes& pre, const uint8_t** modrm) {
  const uint64_t word = pre.rex_w ? 8 : pre.operand16 ? 2 : 4;
  *modrm = op + 1;
  const uint8_t o = op[0];
  if (o < 0x40 && (o & 7) < 4) return (o & 1) ? word : 1;  // add/or/adc/sbb/and/sub/xor/cmp r/m forms
  switch (o) {
    case 0x88: case 0x8A: case 0xC6: case 0x80: case 0xF6: case 0xFE: case 0x84: case 0x86:
      return 1;
    case 0x89: case 0x8B: case 0xC7: case 0x81: case 0x83: case 0xF7: case 0xFF: case 0x85: case 0x87:
      return word;
    case 0x63:  // movsxd
      return 4;
    case 0x0F:
      break;
    default:
      return 0;
  }
  *modrm = op + 2;
  switch (op[1]) {
    case 0xB6: case 0xBE:  // movzx/movsx from a byte
      return 1;
    case 0xB7: case 0xBF:
      return 2;
    case 0x10: case 0x11:  // movups/upd, movss (F3), movsd (F2)
      return pre.f3 ? 4 : pre.f2 ? 8 : 16;
    case 0x28: case 0x29:  // movaps/apd
      return 16;
    case 0x6F: case 0x7F:  // movdqa (66), movdqu (F3), movq mmx
      return pre.operand16 || pre.f3 ? 16 : 8;
    case 0xD6:  // movq xmm -> m64
      return 8;
    case 0x7E:  // movq m64 -> xmm (F3), movd/movq xmm -> r/m (66)
      return pre.f3 ? 8 : pre.rex_w ? 8 : 4;
    case 0x2E: case 0x2F:  // ucomiss/comiss, ucomisd/comisd (66)
      return pre.operand16 ? 8 : 4;
    case 0xB0: case 0xC0:  // cmpxchg, xadd r/m8
      return 1;
    case 0xB1: case 0xC1:  // cmpxchg, xadd r/m
      return word;
    case 0xC7:  // cmpxchg8b/16b (/1)
      return ((*modrm)[0] >> 3 & 7) == 1 ? (pre.rex_w ? 16 : 8) : 0;
    default:
      return 0;
  }
}

MemoryOperand Decode(const uint8_t* code, const ucontext_t* uc) {
  MemoryOperand out;
  Prefixes pre;
  const uint8_t* p = code;
  for (int i = 0; i < 4; ++i, ++p) {
    if (*p == 0x66) pre.operand16 = true;
    else if (*p == 0xF2) pre.f2 = true;
    else if (*p == 0xF3) pre.f3 = true;
    else if (*p == 0x64 || *p == 0x65) pre.segment = true;  // fs/gs: thread-local, no address of ours
    else if (*p == 0xF0) pre.lock = true;
    else if (*p == 0x2E || *p == 0x36 || *p == 0x3E || *p == 0x26 || *p == 0x67) continue;
    else break;
  }
  const uint8_t* modrm = nullptr;
  if (p[0] == 0xC5 || p[0] == 0xC4) {  // VEX: map 0F only
    const bool three = p[0] == 0xC4;
    if (three && (p[1] & 0x1F) != 1) return out;
    const uint8_t last = three ? p[2] : p[1];
    pre.rex_r = !(p[1] & 0x80);
    pre.rex_x = three && !(p[1] & 0x40);
    pre.rex_b = three && !(p[1] & 0x20);
    const uint8_t* op = p + (three ? 3 : 2);
    out.width = VexMoveWidth(op[0], last & 3, (last & 4) != 0);
    modrm = op + 1;
  } else {
    if ((p[0] & 0xF0) == 0x40) {  // REX
      pre.rex_w = p[0] & 8, pre.rex_r = p[0] & 4, pre.rex_x = p[0] & 2, pre.rex_b = p[0] & 1;
      ++p;
    }
    out.width = LegacyWidth(p, pre, &modrm);
    // x86 makes an instruction with the lock prefix, and xchg with a memory
    // operand, one atomic read-modify-write (what std::atomic's and
    // __sync_/__atomic_ read-modify-writes and seq_cst stores compile to).
    out.atomic = out.width != 0 && (pre.lock || p[0] == 0x86 || p[0] == 0x87) && (modrm[0] >> 6) != 3;
  }
  if (out.width != 0 && !pre.segment) out.has_address = OperandAddress(modrm, pre, uc, &out.address);
  return out;
}

}  // namespace

uint64_t AccessWidthOf(const uint8_t* code) {
  ucontext_t none{};
  return Decode(code, &none).width;
}

FaultSite ReadFaultSite(const siginfo_t* info, const ucontext_t* context) {
  FaultSite site;
  site.address = reinterpret_cast<Address>(info->si_addr);
  site.write = (context->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  site.pc = static_cast<uint64_t>(context->uc_mcontext.gregs[REG_RIP]);
  // The instruction's bytes, read without faulting should its page be gone.
  uint8_t code[16] = {};
  iovec local{code, sizeof code}, remote{reinterpret_cast<void*>(site.pc), sizeof code};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) <= 0) return site;
  const MemoryOperand operand = Decode(code, context);
  // The operand's own bytes when the fault lies in them (an access that
  // straddles into the guarded page starts before the faulting byte); else
  // the faulting byte alone: never bytes the access may not have touched.
  if (operand.has_address && site.address >= operand.address && site.address < operand.address + operand.width) {
    site.address = operand.address;
    site.size = operand.width;
    site.atomic = operand.atomic;
  }
  return site;
}

void CodeRanges::AddObjectsNamed(std::initializer_list<const char*> prefixes) {
  struct Context {
    CodeRanges* self;
    std::initializer_list<const char*> prefixes;
  } context{this, prefixes};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* c = static_cast<Context*>(data);
        const char* path = info->dlpi_name ? info->dlpi_name : "";
        const char* slash = std::strrchr(path, '/');
        const char* name = slash ? slash + 1 : path;
        bool wanted = false;
        for (const char* prefix : c->prefixes) wanted = wanted || std::strncmp(name, prefix, std::strlen(prefix)) == 0;
        if (!wanted) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            c->self->Add(info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        return 0;
      },
      &context);
}

FaultOrigin OriginOf(uint64_t pc, const uint64_t* stack, size_t count, const CodeRanges& tracer,
                     const CodeRanges& cuda, bool in_followed_host_function) {
  if (tracer.Contains(pc)) return FaultOrigin::kTracer;
  if (cuda.Contains(pc)) return FaultOrigin::kCuda;
  size_t first = 0;
  while (first < count && stack[first] != pc) ++first;
  // Outward from the faulting frame (the frames before it are the signal
  // handler's): the first frame of the tracer or of CUDA says whose call it
  // is. Without the faulting frame, only the instruction itself can say.
  for (size_t i = first + 1; i < count; ++i) {
    if (tracer.Contains(stack[i])) return in_followed_host_function ? FaultOrigin::kProgram : FaultOrigin::kTracer;
    if (cuda.Contains(stack[i])) return FaultOrigin::kCuda;
  }
  return FaultOrigin::kProgram;
}

}  // namespace streamcheck::tracer::host
