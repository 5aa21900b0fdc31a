// Run by signal_chain_test.cpp with the preloaded library (tracer/preload/):
// guard pages (tracer/host/guard_table.h) on plain mmap'd memory, the
// tracer's SIGSEGV handler first (tracer/host/signal_chain.h), and a program
// that has its own SIGSEGV handling, chosen by the argument. Prints what it
// saw; ends as the scenario says (some by SIGSEGV's default action).
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tracer/host/guard_table.h"
#include "tracer/host/signal_chain.h"

namespace {

using streamcheck::Address;
using streamcheck::tracer::host::GuardTable;
using streamcheck::tracer::host::SignalChain;

GuardTable g_table;
const uint64_t kPage = GuardTable::PageSize();

bool GuardFault(siginfo_t* info, ucontext_t* context) {
  const bool write = (context->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  return g_table.OnFault(reinterpret_cast<Address>(info->si_addr), write) != GuardTable::FaultVerdict::kNotOurs;
}
void BeforeFatal() {
  const char text[] = "findings saved\n";
  (void)!write(1, text, sizeof text - 1);
}
void MemoryChanging(void* addr, size_t len) { g_table.ProgramChanged(reinterpret_cast<Address>(addr), len); }

bool Install() { return SignalChain::Install(GuardFault, BeforeFatal, MemoryChanging); }

// `pages` pages, filled with 7, every one guarded as a pending device write.
char* GuardedPages(size_t pages) {
  auto* p = static_cast<char*>(mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  std::memset(p, 7, pages * kPage);
  g_table.AddRegion(reinterpret_cast<Address>(p), pages * kPage, GuardTable::RegionKind::kWholeMapping);
  GuardTable::Range all{reinterpret_cast<Address>(p), pages * kPage, true};
  g_table.Guard(&all, 1);
  return p;
}
// Opens every guarded page as the engine's word would.
void AllOrdered() {
  g_table.NoteDeviceWork({1, 1});
  g_table.OpenOrdered([](GuardTable::DeviceWork) { return true; });
}

char* ProgramsOwnNoAccessPage() {
  return static_cast<char*>(mmap(nullptr, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
}

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

sigjmp_buf g_jump;
std::atomic<int> g_calls{0};
std::atomic<void*> g_fault_address{nullptr};

void SiginfoHandler(int, siginfo_t* info, void*) {
  g_calls.fetch_add(1);
  g_fault_address = info->si_addr;
  siglongjmp(g_jump, 1);
}

void InstallSiginfoHandler(int flags = 0) {
  struct sigaction sa {};
  sa.sa_sigaction = SiginfoHandler;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
}

// A read of the program's own inaccessible page, through its handler.
void ProgramFault(char* own) {
  if (sigsetjmp(g_jump, 1) == 0) {
    volatile char c = own[5];
    (void)c;
    Say("no fault?");
  }
}

int HandlerBeforeOrAfter(bool before) {
  if (before) InstallSiginfoHandler();
  if (!Install()) return Say("not installed"), 1;
  if (!before) InstallSiginfoHandler();
  char* guarded = GuardedPages(2);
  char* own = ProgramsOwnNoAccessPage();
  Say("guarded read " + std::to_string(guarded[kPage + 3]));
  guarded[10] = 9;
  Say("program handler calls after guard faults: " + std::to_string(g_calls.load()));
  ProgramFault(own);
  Say("program handler calls: " + std::to_string(g_calls.load()) +
      (g_fault_address.load() == own + 5 ? ", its address" : ", another address"));
  return 0;
}

std::atomic<int> g_plain_calls{0};
// Atomic: the compiler must not move its store past the access that faults.
std::atomic<char*> g_own{nullptr};
void PlainHandler(int sig) {
  g_plain_calls.fetch_add(sig == SIGSEGV ? 1 : 100);
  mprotect(g_own.load(), kPage, PROT_READ | PROT_WRITE);  // the program's own, through the preloaded library
}

int PlainHandlerFixesAndReturns() {
  if (!Install()) return 1;
  signal(SIGSEGV, PlainHandler);
  char* guarded = GuardedPages(1);
  char* own = ProgramsOwnNoAccessPage();
  g_own = own;
  own[0] = 3;  // faults once; the handler gives access; the write happens
  Say("guarded " + std::to_string(guarded[0]) + ", own " + std::to_string(own[0]) + ", handler calls " +
      std::to_string(g_plain_calls.load()));
  return 0;
}

int ResetHand() {
  if (!Install()) return 1;
  InstallSiginfoHandler(SA_RESETHAND);
  char* guarded = GuardedPages(1);
  char* own = ProgramsOwnNoAccessPage();
  Say("guarded " + std::to_string(guarded[0]));
  ProgramFault(own);
  struct sigaction now {};
  sigaction(SIGSEGV, nullptr, &now);
  Say(std::string("after one fault: ") + (now.sa_handler == SIG_DFL ? "default" : "still the handler"));
  guarded[1] = 1;
  Say("guarded after the reset " + std::to_string(guarded[kPage - 1]));
  volatile char c = own[0];  // now the default action
  (void)c;
  Say("survived?");
  return 0;
}

uintptr_t g_altstack_low = 0, g_altstack_high = 0;
void OverflowHandler(int, siginfo_t*, void*) {
  int local = 0;
  const auto here = reinterpret_cast<uintptr_t>(&local);
  const char* text = here >= g_altstack_low && here < g_altstack_high ? "handler on the alternate stack\n"
                                                                      : "handler NOT on the alternate stack\n";
  (void)!write(1, text, std::strlen(text));
  _exit(7);
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
int Recurse(int depth) {
  volatile char pad[256];
  pad[0] = static_cast<char>(depth);
  return Recurse(depth + 1) + pad[0];
}
#pragma GCC diagnostic pop

int AlternateStack() {
  if (!Install()) return 1;
  static std::vector<char> stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = stack.data();
  ss.ss_size = stack.size();
  sigaltstack(&ss, nullptr);
  g_altstack_low = reinterpret_cast<uintptr_t>(stack.data());
  g_altstack_high = g_altstack_low + stack.size();
  struct sigaction sa {};
  sa.sa_sigaction = OverflowHandler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
  char* guarded = GuardedPages(1);
  Say("guarded " + std::to_string(guarded[0]));
  return Recurse(0);
}

// Python's faulthandler: installs itself (SA_NODEFER | SA_ONSTACK), and on a
// fault dumps, puts back the handler it replaced and raises the signal again.
struct sigaction g_before_faulthandler;
void FaulthandlerLike(int sig) {
  const char text[] = "Fatal Python error: Segmentation fault (dumped)\n";
  (void)!write(1, text, sizeof text - 1);
  sigaction(sig, &g_before_faulthandler, nullptr);
  raise(sig);
}

int Faulthandler() {
  if (!Install()) return 1;
  struct sigaction sa {};
  sa.sa_handler = FaulthandlerLike;
  sa.sa_flags = SA_NODEFER | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, &g_before_faulthandler);
  Say(std::string("replaced: ") + (g_before_faulthandler.sa_handler == SIG_DFL ? "the default" : "something else"));
  char* guarded = GuardedPages(1);
  Say("guarded " + std::to_string(guarded[0]));
  volatile char* null = nullptr;
  return *null;
}

int DefaultAction() {
  if (!Install()) return 1;
  char* guarded = GuardedPages(1);
  Say("guarded " + std::to_string(guarded[0]));
  volatile char* null = nullptr;
  return *null;
}

int Ignored() {
  if (!Install()) return 1;
  signal(SIGSEGV, SIG_IGN);
  char* guarded = GuardedPages(1);
  kill(getpid(), SIGSEGV);
  Say("a sent SIGSEGV ignored, guarded " + std::to_string(guarded[0]));
  volatile char* null = nullptr;
  return *null;  // a fault is never ignored
}

int Query() {
  if (!Install()) return 1;
  InstallSiginfoHandler();
  struct sigaction old {};
  sigaction(SIGSEGV, nullptr, &old);
  Say(std::string("query: ") + (old.sa_sigaction == SiginfoHandler ? "the program's handler" : "another"));
  const auto previous = signal(SIGSEGV, SIG_DFL);
  Say(std::string("signal() returned: ") +
      (reinterpret_cast<void*>(previous) == reinterpret_cast<void*>(SiginfoHandler) ? "the program's handler"
                                                                                    : "another"));
  return 0;
}

int BlockedByTheProgram() {
  if (!Install()) return 1;
  InstallSiginfoHandler();
  sigset_t segv, now;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  pthread_sigmask(SIG_BLOCK, &segv, nullptr);
  char* guarded = GuardedPages(1);
  guarded[0] = 4;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  Say(std::string("guarded written; the program's mask ") +
      (sigismember(&now, SIGSEGV) ? "blocks SIGSEGV" : "does not block SIGSEGV"));
  if (sigsetjmp(g_jump, 1) == 0) {
    raise(SIGSEGV);
    Say("raised while blocked: " + std::to_string(g_calls.load()) + " handler calls");
    pthread_sigmask(SIG_UNBLOCK, &segv, nullptr);
    Say("unblocked without delivery?");
  } else {
    Say("delivered at the unblock: " + std::to_string(g_calls.load()) + " handler call");
  }
  return 0;
}

std::atomic<int> g_usr1{0};
char* g_usr1_page = nullptr;
void Usr1Handler(int) { g_usr1.fetch_add(g_usr1_page[7]); }

// Another signal's handler that blocks everything while it runs touches a guarded page.
int OtherHandlersMask(bool before) {
  struct sigaction sa {};
  sa.sa_handler = Usr1Handler;
  sigfillset(&sa.sa_mask);
  if (before) sigaction(SIGUSR1, &sa, nullptr);
  if (!Install()) return 1;
  if (!before) sigaction(SIGUSR1, &sa, nullptr);
  g_usr1_page = GuardedPages(1);
  raise(SIGUSR1);
  struct sigaction old {};
  sigaction(SIGUSR1, nullptr, &old);
  Say("SIGUSR1 handler read " + std::to_string(g_usr1.load()) + "; its mask as the program sees it " +
      (sigismember(&old.sa_mask, SIGSEGV) ? "has SIGSEGV" : "lacks SIGSEGV"));
  return 0;
}

int SixteenThreads() {
  if (!Install()) return 1;
  constexpr int kThreads = 16;
  char* guarded = GuardedPages(kThreads + 1);
  std::atomic<bool> go{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      for (int round = 0; round < 100; ++round) {
        char* own = guarded + (i + 1) * kPage;
        own[round] = static_cast<char>(round);
        if (own[round] != static_cast<char>(round) || guarded[round] != 7) wrong.fetch_add(1);
        if (round % 10 == 0) {
          GuardTable::Range again{reinterpret_cast<Address>(own), kPage, round % 20 == 0};
          g_table.Guard(&again, 1);
        }
      }
    });
  go = true;
  for (std::thread& t : threads) t.join();
  Say("wrong values " + std::to_string(wrong.load()) + ", faults " +
      std::string(g_table.counters().faults >= kThreads ? "at least one per thread" : "too few"));
  return 0;
}

int ProgramMprotects() {
  if (!Install()) return 1;
  signal(SIGSEGV, PlainHandler);
  char* guarded = GuardedPages(2);
  mprotect(guarded, kPage, PROT_READ);  // the program's own wish for page 0
  AllOrdered();                         // must not give page 0 write access back
  g_own = guarded;
  guarded[0] = 5;                       // the program's fault, to its handler, which gives access
  guarded[kPage] = 6;                   // page 1: opened by the guards
  Say("program handler calls " + std::to_string(g_plain_calls.load()) + ", values " + std::to_string(guarded[0]) +
      " " + std::to_string(guarded[kPage]));
  return 0;
}

int ProgramUnmapsAndMapsAgain() {
  if (!Install()) return 1;
  InstallSiginfoHandler();
  char* guarded = GuardedPages(1);
  munmap(guarded, kPage);
  mmap(guarded, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  AllOrdered();  // must not make the new read-only mapping writable
  if (sigsetjmp(g_jump, 1) == 0) {
    guarded[0] = 1;
    Say("the new read-only mapping was writable");
  } else {
    Say(std::string("the new mapping stays read-only; the fault went to the program ") +
        (g_fault_address.load() == guarded ? "at its address" : "elsewhere"));
  }
  return 0;
}

int ForkWhileGuarded() {
  if (!Install()) return 1;
  pthread_atfork([] { g_table.LockForFork(); }, [] { g_table.UnlockInParent(); }, [] { g_table.ResetInChild(); });
  char* guarded = GuardedPages(1);
  const pid_t child = fork();
  if (child == 0) {
    guarded[1] = static_cast<char>(guarded[0] + 1);
    _exit(g_table.counters().faults == 0 && guarded[1] == 8 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  Say("child: " + std::string(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "no fault, right values"
                                                                            : "failed " + std::to_string(status)));
  const uint64_t faults = g_table.counters().faults;
  Say("parent's page still guarded: " + std::string(guarded[0] == 7 && g_table.counters().faults == faults + 1 ? "yes" : "no"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "install") return Say(Install() ? "installed" : "not installed"), 0;
  if (what == "handler-before") return HandlerBeforeOrAfter(true);
  if (what == "handler-after") return HandlerBeforeOrAfter(false);
  if (what == "plain-handler") return PlainHandlerFixesAndReturns();
  if (what == "resethand") return ResetHand();
  if (what == "sigaltstack") return AlternateStack();
  if (what == "faulthandler") return Faulthandler();
  if (what == "default") return DefaultAction();
  if (what == "ignore") return Ignored();
  if (what == "query") return Query();
  if (what == "blocked") return BlockedByTheProgram();
  if (what == "other-mask-before") return OtherHandlersMask(true);
  if (what == "other-mask-after") return OtherHandlersMask(false);
  if (what == "threads") return SixteenThreads();
  if (what == "program-mprotect") return ProgramMprotects();
  if (what == "program-munmap") return ProgramUnmapsAndMapsAgain();
  if (what == "fork") return ForkWhileGuarded();
  return Say("unknown scenario " + what), 2;
}
