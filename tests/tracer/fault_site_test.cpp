// tracer/host/fault_site.h: the faulting access's address and width decoded
// from the instruction and its registers, and whose code made it.
#include "tracer/host/fault_site.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace streamcheck::tracer::host {
namespace {

uint64_t Width(std::vector<uint8_t> code) {
  code.resize(16, 0x90);
  return AccessWidthOf(code.data());
}

TEST(FaultSite, WidthsOfTheCommonLoadsAndStores) {
  EXPECT_EQ(Width({0x8b, 0x47, 0x08}), 4u);              // mov eax, [rdi+8]
  EXPECT_EQ(Width({0x48, 0x8b, 0x07}), 8u);              // mov rax, [rdi]
  EXPECT_EQ(Width({0x66, 0x89, 0x07}), 2u);              // mov [rdi], ax
  EXPECT_EQ(Width({0x88, 0x07}), 1u);                    // mov [rdi], al
  EXPECT_EQ(Width({0x0f, 0xb6, 0x07}), 1u);              // movzx eax, byte [rdi]
  EXPECT_EQ(Width({0x0f, 0xbf, 0x07}), 2u);              // movsx eax, word [rdi]
  EXPECT_EQ(Width({0x48, 0x63, 0x07}), 4u);              // movsxd rax, dword [rdi]
  EXPECT_EQ(Width({0x03, 0x07}), 4u);                    // add eax, [rdi]
  EXPECT_EQ(Width({0x80, 0x3f, 0x00}), 1u);              // cmp byte [rdi], 0
  EXPECT_EQ(Width({0xf3, 0x0f, 0x10, 0x07}), 4u);        // movss xmm0, [rdi]
  EXPECT_EQ(Width({0xf2, 0x0f, 0x10, 0x07}), 8u);        // movsd xmm0, [rdi]
  EXPECT_EQ(Width({0x0f, 0x10, 0x07}), 16u);             // movups xmm0, [rdi]
  EXPECT_EQ(Width({0xf3, 0x0f, 0x6f, 0x07}), 16u);       // movdqu xmm0, [rdi]
  EXPECT_EQ(Width({0xc5, 0xfa, 0x10, 0x07}), 4u);        // vmovss xmm0, [rdi]
  EXPECT_EQ(Width({0xc5, 0xfc, 0x10, 0x07}), 32u);       // vmovups ymm0, [rdi]
  EXPECT_EQ(Width({0xc5, 0xfe, 0x6f, 0x07}), 32u);       // vmovdqu ymm0, [rdi]
  EXPECT_EQ(Width({0xc4, 0xc1, 0x7c, 0x10, 0x00}), 32u); // vmovups ymm0, [r8]
  EXPECT_EQ(Width({0xf3, 0xa4}), 0u);                    // rep movsb: not known, the faulting byte stands
  EXPECT_EQ(Width({0x62, 0xf1, 0x7c, 0x48, 0x10, 0x07}), 0u);  // EVEX: not known
}

// A fault at `address` by the instruction `code`, with the registers given.
FaultSite SiteOf(std::vector<uint8_t> code, Address address, std::initializer_list<std::pair<int, uint64_t>> regs,
                 bool write = false) {
  static std::vector<uint8_t> text;  // the "code", where the pc points
  text = code;
  text.resize(16, 0x90);
  ucontext_t uc;
  std::memset(&uc, 0, sizeof uc);
  for (const auto& [reg, value] : regs) uc.uc_mcontext.gregs[reg] = static_cast<greg_t>(value);
  uc.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(reinterpret_cast<uintptr_t>(text.data()));
  uc.uc_mcontext.gregs[REG_ERR] = write ? 6 : 4;
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_addr = reinterpret_cast<void*>(address);
  return ReadFaultSite(&info, &uc);
}

TEST(FaultSite, TheOperandsOwnAddressAndWidth) {
  // mov eax, [rdi + rcx*4 + 0x10], rdi = 0x10000, rcx = 3: the fault at its first byte.
  FaultSite s = SiteOf({0x8b, 0x44, 0x8f, 0x10}, 0x1001c, {{REG_RDI, 0x10000}, {REG_RCX, 3}});
  EXPECT_EQ(s.address, 0x1001cu);
  EXPECT_EQ(s.size, 4u);
  EXPECT_FALSE(s.write);
  // An 8-byte load straddling into a guarded page faults at the page's first
  // byte; the access starts 4 bytes before it.
  s = SiteOf({0x4a, 0x8b, 0x04, 0x87}, 0x20000, {{REG_RDI, 0x1fffc}, {REG_R8, 0}}, /*write=*/false);
  EXPECT_EQ(s.address, 0x1fffcu);  // mov rax, [rdi + r8*4]
  EXPECT_EQ(s.size, 8u);
  // A store through r9 (REX.B).
  s = SiteOf({0x41, 0x89, 0x01}, 0x30000, {{REG_R9, 0x30000}}, /*write=*/true);
  EXPECT_EQ(s.address, 0x30000u);
  EXPECT_EQ(s.size, 4u);
  EXPECT_TRUE(s.write);
}

// Locked read-modify-writes (std::atomic, __sync_*, __atomic_*) and xchg
// with memory are atomic; plain loads and stores, and register forms, not.
TEST(FaultSite, AtomicReadModifyWrites) {
  FaultSite s = SiteOf({0xf0, 0x0f, 0xc1, 0x07}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_TRUE(s.atomic);  // lock xadd [rdi], eax
  EXPECT_EQ(s.size, 4u);
  s = SiteOf({0xf0, 0x48, 0x0f, 0xb1, 0x17}, 0x10008, {{REG_RDI, 0x10008}}, /*write=*/true);
  EXPECT_TRUE(s.atomic);  // lock cmpxchg [rdi], rdx
  EXPECT_EQ(s.size, 8u);
  s = SiteOf({0xf0, 0x83, 0x07, 0x01}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_TRUE(s.atomic);  // lock add dword [rdi], 1
  EXPECT_EQ(s.size, 4u);
  s = SiteOf({0x87, 0x07}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_TRUE(s.atomic);  // xchg [rdi], eax: a seq_cst store
  s = SiteOf({0xf0, 0x48, 0x0f, 0xc7, 0x0f}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_TRUE(s.atomic);  // lock cmpxchg16b [rdi]
  EXPECT_EQ(s.size, 16u);
  s = SiteOf({0x89, 0x07}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_FALSE(s.atomic);  // mov [rdi], eax
  s = SiteOf({0x8b, 0x07}, 0x10000, {{REG_RDI, 0x10000}});
  EXPECT_FALSE(s.atomic);  // mov eax, [rdi]: an acquire load looks like any load
  s = SiteOf({0x83, 0x07, 0x01}, 0x10000, {{REG_RDI, 0x10000}}, /*write=*/true);
  EXPECT_FALSE(s.atomic);  // add dword [rdi], 1 without lock
}

TEST(FaultSite, WithoutAKnownInstructionTheFaultingByte) {
  const FaultSite s = SiteOf({0xf3, 0xa4}, 0x40005, {});
  EXPECT_EQ(s.address, 0x40005u);
  EXPECT_EQ(s.size, 1u);
  // A decoded operand that does not hold the faulting byte (a register
  // we misread): the faulting byte alone, not a guess.
  const FaultSite t = SiteOf({0x8b, 0x07}, 0x50000, {{REG_RDI, 0x90000}});
  EXPECT_EQ(t.address, 0x50000u);
  EXPECT_EQ(t.size, 1u);
}

TEST(FaultSite, WhoseCodeMadeTheAccess) {
  CodeRanges tracer, cuda;
  tracer.Add(0x1000, 0x2000);
  cuda.Add(0x5000, 0x6000);
  constexpr uint64_t kProgram = 0x9000, kHandler = 0x1100;
  // The handler's own frames come first, then the faulting frame.
  const uint64_t program_only[] = {kHandler, kHandler + 8, kProgram, kProgram + 0x40};
  EXPECT_EQ(OriginOf(kProgram, program_only, 4, tracer, cuda), FaultOrigin::kProgram);
  const uint64_t inside_cuda[] = {kHandler, kProgram, 0x5100, kProgram + 0x80};  // a host function, say
  EXPECT_EQ(OriginOf(kProgram, inside_cuda, 4, tracer, cuda), FaultOrigin::kCuda);
  const uint64_t under_tracer[] = {kHandler, 0x7100, 0x1200, 0x5100};  // libc's memcpy called by the tracer
  EXPECT_EQ(OriginOf(0x7100, under_tracer, 4, tracer, cuda), FaultOrigin::kTracer);
  EXPECT_EQ(OriginOf(0x1300, program_only, 4, tracer, cuda), FaultOrigin::kTracer);  // the tracer's instruction
  EXPECT_EQ(OriginOf(0x5200, program_only, 4, tracer, cuda), FaultOrigin::kCuda);
  // Without the faulting frame on the stack, the instruction alone decides.
  EXPECT_EQ(OriginOf(kProgram + 4, inside_cuda, 4, tracer, cuda), FaultOrigin::kProgram);
}

// A host function the tracer follows runs under its trampoline (the tracer's
// code, called by CUDA's): its accesses are the program's, which the engine
// places on the function's own clock. Found on an H100: the racy
// racing_host_functions and graph_host_node gave no host access at all.
TEST(FaultSite, AFollowedHostFunctionsAccessIsTheProgramsThoughTheTrampolineIsOnTheStack) {
  CodeRanges tracer, cuda;
  tracer.Add(0x1000, 0x2000);
  cuda.Add(0x5000, 0x6000);
  constexpr uint64_t kHostFunction = 0x9000, kHandler = 0x1100, kTrampoline = 0x1800, kDriverThread = 0x5800;
  const uint64_t followed[] = {kHandler, kHostFunction, kHostFunction + 0x40, kTrampoline, kDriverThread};
  EXPECT_EQ(OriginOf(kHostFunction, followed, 5, tracer, cuda, /*in_followed_host_function=*/true),
            FaultOrigin::kProgram);
  // Not followed (the trampoline not running): the tracer's frame says whose.
  EXPECT_EQ(OriginOf(kHostFunction, followed, 5, tracer, cuda), FaultOrigin::kTracer);
  // Inside it, libc's memcpy faulting is still the function's access...
  const uint64_t through_libc[] = {kHandler, 0x7100, kHostFunction, kTrampoline, kDriverThread};
  EXPECT_EQ(OriginOf(0x7100, through_libc, 5, tracer, cuda, true), FaultOrigin::kProgram);
  // ... but the tracer's own instruction, or a CUDA call the function makes
  // (which CUDA forbids, yet a query works), are not.
  EXPECT_EQ(OriginOf(0x1300, followed, 5, tracer, cuda, true), FaultOrigin::kTracer);
  const uint64_t cuda_inside[] = {kHandler, 0x7100, 0x5100, kHostFunction, kTrampoline, kDriverThread};
  EXPECT_EQ(OriginOf(0x7100, cuda_inside, 6, tracer, cuda, true), FaultOrigin::kCuda);
}

}  // namespace
}  // namespace streamcheck::tracer::host
