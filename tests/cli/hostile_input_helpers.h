// What the hostile-input tests share: the `streamcheck` binary run in a
// shell, a scratch folder per test, traces of many distinct races, the
// number of findings a database holds, and a command's peak memory.
#pragma once

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/store.h"
#include "tests/common/run_command.h"

namespace streamcheck {
namespace hostile {

namespace fs = std::filesystem;

// stdout and stderr together.
inline testing::CommandResult Streamcheck(const std::string& args) {
  return testing::RunCommand(std::string(STREAMCHECK_BINARY) + " " + args + " 2>&1");
}
// stdout only (stderr to /dev/null).
inline testing::CommandResult StreamcheckOut(const std::string& args) {
  return testing::RunCommand(std::string(STREAMCHECK_BINARY) + " " + args + " 2>/dev/null");
}

class Scratch {
 public:
  Scratch() {
    dir_ = fs::temp_directory_path() /
           ("streamcheck-hostile-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    for (const std::string& mount : mounts_) ::umount2(mount.c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string File(const std::string& name) const { return (dir_ / name).string(); }
  // A mount the test made inside: undone at the end, whatever happened.
  void Mounted(const std::string& path) { mounts_.push_back(path); }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
  std::vector<std::string> mounts_;
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteAll(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A text trace with `races` distinct cross-stream races (a writer and a
// reader kernel per buffer, on two non-blocking streams).
inline std::string RacesTrace(int races, const std::string& writer = "w", const std::string& reader = "r") {
  std::string t =
      "stream_create thread=1 stream=0x55 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
      "stream_create thread=1 stream=0x66 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n";
  for (int i = 0; i < races; ++i) {
    const std::string address = "0x" + std::to_string(1000 + i) + "000";
    t += "malloc thread=1 dst=" + address + " size=64 memory_kind=device api=\"cudaMalloc\"\n";
    t += "kernel_launch thread=1 stream=0x55 name=\"" + writer + std::to_string(i) +
         "\" api=\"cudaLaunchKernel\" access=" + address + "+64:write\n";
    t += "kernel_launch thread=1 stream=0x66 name=\"" + reader + std::to_string(i) +
         "\" api=\"cudaLaunchKernel\" access=" + address + "+64:read\n";
  }
  return t;
}

inline int64_t FindingsIn(const std::string& db) {
  std::string error;
  auto store = store::Store::Open(db, &error, {.read_only = true});
  if (!store) return -1;
  return store->database().QueryInt("SELECT count(*) FROM findings").value_or(-1);
}

// A database with one finding in it.
inline std::string MakeDatabase(const Scratch& s, const std::string& name = "f.db") {
  WriteAll(s.File("one.txt"), RacesTrace(1));
  const std::string db = s.File(name);
  EXPECT_EQ(Streamcheck("replay -q --db " + db + " " + s.File("one.txt")).exit_code, 0);
  return db;
}

// The peak resident memory of `streamcheck ARGS`, in KiB (-1 when it did not
// exit 0); what it printed goes to `output`.
inline long PeakMemoryKiB(const std::string& args, const std::string& output = "/dev/null") {
  const pid_t child = fork();
  if (child == 0) {
    const std::string command = std::string(STREAMCHECK_BINARY) + " " + args + " >" + output + " 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

}  // namespace hostile
}  // namespace streamcheck
