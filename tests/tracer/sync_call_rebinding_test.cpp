// RebindSyncCalls (tracer/host_threads/sync_call_rebinding.h) on a library that imports
// pthread's locks (rebind_target/), linked with a read-only GOT and with a
// lazily bound writable one: afterwards its calls reach the functions given
// as the real ones, nothing else changed.
#include "tracer/host_threads/sync_call_rebinding.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "tests/common/mapped_permissions.h"

namespace {

using streamcheck::testing::MappedPermissions;

int g_locks = 0, g_unlocks = 0;
int CountingLock(pthread_mutex_t* m) {
  ++g_locks;
  return pthread_mutex_lock(m);
}
int CountingUnlock(pthread_mutex_t* m) {
  ++g_unlocks;
  return pthread_mutex_unlock(m);
}

// Stands in for the preloaded library's real_sync_function.
void* Real(const char* name) {
  if (std::strcmp(name, "pthread_mutex_lock") == 0) return reinterpret_cast<void*>(&CountingLock);
  if (std::strcmp(name, "pthread_mutex_unlock") == 0) return reinterpret_cast<void*>(&CountingUnlock);
  return nullptr;
}

struct Found {
  const char* name;
  int rebound = -1;
  bool left_some = false;  // entries left for a later call
};

int RebindNamed(dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<Found*>(data);
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, found->name) == nullptr) return 0;
  found->rebound = streamcheck::tracer::RebindSyncCalls(*info, &Real, &found->left_some);
  return 1;
}

class SyncCallRebinding : public ::testing::TestWithParam<const char*> {};

TEST_P(SyncCallRebinding, TheLibrarysCallsReachTheGivenFunctions) {
  const std::string path = std::string(REBIND_TARGET_DIR) + "/" + GetParam();
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto lock_once = reinterpret_cast<int (*)()>(dlsym(library, "rebind_target_lock_once"));
  auto lock_address = reinterpret_cast<void* (*)()>(dlsym(library, "rebind_target_lock_address"));
  ASSERT_NE(lock_once, nullptr);
  ASSERT_NE(lock_address, nullptr);

  g_locks = g_unlocks = 0;
  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(g_locks, 0);  // before: libc's, directly

  Found found{GetParam()};
  dl_iterate_phdr(RebindNamed, &found);
  // The lock's jump slot (and, where the code takes its address, its GOT
  // entry) and the unlock's jump slot.
  EXPECT_GE(found.rebound, 2);
  EXPECT_FALSE(found.left_some);

  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(g_locks, 2);
  EXPECT_EQ(g_unlocks, 2);
  EXPECT_EQ(lock_address(), reinterpret_cast<void*>(&CountingLock));
  // Rebinding again finds the same entries and changes nothing more.
  Found again{GetParam()};
  dl_iterate_phdr(RebindNamed, &again);
  EXPECT_EQ(again.rebound, found.rebound);
  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(g_locks, 3);
}

INSTANTIATE_TEST_SUITE_P(ReadOnlyAndLazyGot, SyncCallRebinding,
                         ::testing::Values("librebind_target_relro.so", "librebind_target_lazy.so"),
                         [](const auto& info) { return std::string(std::strstr(info.param, "relro") ? "ReadOnlyGot" : "LazyGot"); });

TEST(SyncCallRebindingNames, NothingIsRewrittenWhereNoNameIsGiven) {
  const std::string path = std::string(REBIND_TARGET_DIR) + "/librebind_target_lazy.so";
  ASSERT_NE(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  auto none = [](const char*) -> void* { return nullptr; };
  struct Data {
    int rebound = -1;
    streamcheck::tracer::RealSyncFunction real;
  } data{-1, none};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* d) {
        auto* data = static_cast<Data*>(d);
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "librebind_target_lazy") == nullptr) return 0;
        data->rebound = streamcheck::tracer::RebindSyncCalls(*info, data->real);
        return 1;
      },
      &data);
  EXPECT_EQ(data.rebound, 0);
}

struct Relro {
  uintptr_t begin = 0, end = 0;  // its whole pages, as the loader locks them
};

int FindRelro(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "librebind_target_loading") == nullptr) return 0;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_GNU_RELRO) continue;
    const uintptr_t begin = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    *static_cast<Relro*>(data) = {begin & ~(page - 1), (begin + info->dlpi_phdr[i].p_memsz) & ~(page - 1)};
  }
  return 1;
}

TEST(SyncCallRebindingWhileLoading, AnObjectWhoseRelroIsStillWritableIsLeftAlone) {
  // dl_iterate_phdr lists an object another thread is still loading before
  // the loader relocated it and made its RELRO part read-only. Made
  // read-only under the loader, its next relocation would crash.
  const std::string path = std::string(REBIND_TARGET_DIR) + "/librebind_target_loading.so";
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto lock_once = reinterpret_cast<int (*)()>(dlsym(library, "rebind_target_lock_once"));
  Relro relro;
  dl_iterate_phdr(FindRelro, &relro);
  ASSERT_LT(relro.begin, relro.end);
  ASSERT_EQ(MappedPermissions(relro.begin).substr(0, 2), "r-");
  ASSERT_EQ(mprotect(reinterpret_cast<void*>(relro.begin), relro.end - relro.begin, PROT_READ | PROT_WRITE), 0);

  Found found{"librebind_target_loading"};
  dl_iterate_phdr(RebindNamed, &found);
  EXPECT_EQ(found.rebound, 0);  // both its entries lie in the RELRO part
  EXPECT_TRUE(found.left_some);
  EXPECT_EQ(MappedPermissions(relro.begin).substr(0, 2), "rw");
  g_locks = 0;
  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(g_locks, 0);

  // Once the loader has locked it, the same object is rebound.
  ASSERT_EQ(mprotect(reinterpret_cast<void*>(relro.begin), relro.end - relro.begin, PROT_READ), 0);
  Found later{"librebind_target_loading"};
  dl_iterate_phdr(RebindNamed, &later);
  EXPECT_GE(later.rebound, 2);
  EXPECT_FALSE(later.left_some);
  EXPECT_EQ(MappedPermissions(relro.begin).substr(0, 2), "r-");
  EXPECT_EQ(lock_once(), 0);
  EXPECT_EQ(g_locks, 1);
}

}  // namespace
