// tracer/frameworks/torch_plugin_cache.h: the PyTorch plugin's key, its
// cache entry's states, the lock that makes several processes build once,
// and what a failed, interrupted or lying build leaves (never a plugin), with
// a shell script standing in for build_torch_plugin.py.
#include "tracer/frameworks/torch_plugin_cache.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/common/temp_dir.h"

namespace streamcheck::tracer::torch_plugin {
namespace {

namespace fs = std::filesystem;

// A stand-in builder: FAKE_MODE says what it does; each run appends a line to FAKE_RUNS.
constexpr const char* kFakeBuilder = R"(
while [ $# -gt 0 ]; do
  case $1 in --output) out=$2; shift;; --build-dir) build=$2; shift;; esac; shift
done
echo run >> "$FAKE_RUNS"
mkdir -p "$build" && echo object > "$build/plugin.o"
case $FAKE_MODE in
  ok) sleep "${FAKE_SLEEP:-0}"; cp /bin/true "$out" ;;
  fail) echo "torch_plugin.cpp:3:1: error: unknown type name 'boom'"
        echo "streamcheck-plugin-build: error: the compiler failed" >&2
        echo "streamcheck-plugin-build: fix: read the log" >&2; exit 1 ;;
  garbage) echo "not a library" > "$out" ;;
  nothing) ;;
  killed) cp /bin/true "$out"; kill -TERM $$ ;;
  slow) sleep 30 ;;
esac
)";

using streamcheck::testing::ReadFile;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class TorchPluginCache : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/torch-plugin-cache-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    root_ = dir;
    Write(root_ / "torch" / "version.py",
          "from typing import Optional\n__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n");
    Write(root_ / "torch" / "share" / "cmake" / "Torch" / "TorchConfig.cmake",
          "  set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")\n");
    Write(root_ / "sources" / "tracer" / "frameworks" / "pytorch" / "torch_plugin.cpp",
          "#include \"tracer/frameworks/framework_hooks.h\"\nint x;\n");
    Write(root_ / "sources" / "tracer" / "frameworks" / "framework_hooks.h", "// hooks v1\n");
    Write(root_ / "sources" / "tracer" / "unrelated.h", "// not included\n");
    Write(root_ / "builder.sh", kFakeBuilder);
    ASSERT_TRUE(ReadTorchBuild((root_ / "torch").string(), &request_.torch, &error_)) << error_;
    request_.sources = {(root_ / "builder.sh").string(), (root_ / "sources").string()};
    request_.entry.dir = (root_ / "cache" / "streamcheck" / "torch-key").string();
    request_.python = "/bin/sh";
    SetMode("ok");
  }
  void TearDown() override { fs::remove_all(root_); }

  void SetMode(const std::string& mode, const std::string& sleep = "0") {
    request_.environment = {"PATH=/usr/bin:/bin", "FAKE_MODE=" + mode, "FAKE_SLEEP=" + sleep,
                            "FAKE_RUNS=" + (root_ / "runs").string()};
  }
  int Runs() {
    std::ifstream in(root_ / "runs");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  BuildResult Ensure(int* building = nullptr, int* waiting = nullptr) {
    BuildMessages messages;
    messages.building = [building] { if (building) ++*building; };
    messages.waiting = [waiting] { if (waiting) ++*waiting; };
    return EnsurePlugin(request_, messages);
  }

  fs::path root_;
  BuildRequest request_;
  std::string error_;
};

TEST_F(TorchPluginCache, ReadsWhatPyTorchIsBuiltFor) {
  EXPECT_EQ(request_.torch.version, "2.11.0+cu130");
  EXPECT_EQ(request_.torch.cuda, "13.0");
  EXPECT_EQ(request_.torch.cxx11_abi, "1");
  EXPECT_EQ(Describe(request_.torch), "PyTorch 2.11.0+cu130 (CUDA 13.0, C++11 ABI)");
  EXPECT_EQ(TorchDirOfLibrary("/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"),
            "/venv/lib/python3.12/site-packages/torch");
  // A CPU build's version.py, an older layout, no TorchConfig.cmake.
  Write(root_ / "cpu" / "version.py", "__version__ = \"2.4.0\"\ncuda = None\n");
  TorchBuild cpu;
  ASSERT_TRUE(ReadTorchBuild((root_ / "cpu").string(), &cpu, &error_));
  EXPECT_EQ(cpu.version, "2.4.0");
  EXPECT_EQ(cpu.cuda, "");
  EXPECT_EQ(cpu.cxx11_abi, "");
  EXPECT_FALSE(ReadTorchBuild((root_ / "nothing").string(), &cpu, &error_));
  EXPECT_NE(error_.find("version.py"), std::string::npos) << error_;
}

TEST_F(TorchPluginCache, TheKeyNamesPyTorchItsCudaItsAbiStreamcheckAndTheSources) {
  const TorchBuild& torch = request_.torch;
  EXPECT_EQ(CacheKey(torch, "0.1.0", "abc123"), "torch-2.11.0+cu130-cuda13.0-abi1-streamcheck0.1.0-abc123");
  TorchBuild other = torch;
  other.cxx11_abi = "0";
  EXPECT_NE(CacheKey(other, "0.1.0", "abc123"), CacheKey(torch, "0.1.0", "abc123"));
  other = torch;
  other.cuda = "";
  EXPECT_EQ(CacheKey(other, "0.1.0", "abc"), "torch-2.11.0+cu130-cudanone-abi1-streamcheck0.1.0-abc");
  EXPECT_NE(CacheKey(torch, "0.2.0", "abc"), CacheKey(torch, "0.1.0", "abc"));
  other.version = "../../etc 1";  // nothing of it leaves the cache folder
  EXPECT_EQ(CacheKey(other, "0.1.0", "abc").find('/'), std::string::npos);
}

TEST_F(TorchPluginCache, TheDigestFollowsTheFilesThePluginIncludes) {
  const std::string source_root = (root_ / "sources").string();
  const std::string before = SourceDigest(source_root);
  EXPECT_EQ(before.size(), 12u);
  Write(root_ / "sources" / "tracer" / "unrelated.h", "// changed, still not included\n");
  EXPECT_EQ(SourceDigest(source_root), before);
  Write(root_ / "sources" / "tracer" / "frameworks" / "framework_hooks.h", "// hooks v2\n");
  EXPECT_NE(SourceDigest(source_root), before);
}

TEST_F(TorchPluginCache, FindsTheSourcesInstalledOrInABuildTree) {
  // Installed: P/lib/streamcheck/ and P/share/streamcheck/torch_plugin/.
  const fs::path installed = root_ / "P";
  Write(installed / "lib" / "streamcheck" / kBuilderFile, "");
  fs::create_directories(installed / "share" / "streamcheck");
  fs::create_directory_symlink(root_ / "sources", installed / "share" / "streamcheck" / "torch_plugin");
  PluginSources found;
  ASSERT_TRUE(FindPluginSources((installed / "lib" / "streamcheck").string(), &found, &error_)) << error_;
  EXPECT_EQ(found.builder, (installed / "lib" / "streamcheck" / kBuilderFile).string());
  EXPECT_EQ(found.source_root, fs::canonical(root_ / "sources").string());
  // A build tree: tracer/ with the builder and a link to the sources.
  const fs::path build = root_ / "build" / "tracer";
  Write(build / kBuilderFile, "");
  fs::create_directory_symlink(root_ / "sources", build / "torch_plugin_source");
  ASSERT_TRUE(FindPluginSources(build.string(), &found, &error_)) << error_;
  fs::remove(installed / "share" / "streamcheck" / "torch_plugin");
  EXPECT_FALSE(FindPluginSources((installed / "lib" / "streamcheck").string(), &found, &error_));
  EXPECT_NE(error_.find("sources are not installed"), std::string::npos) << error_;
}

TEST_F(TorchPluginCache, TheCacheIsUnderXdgCacheHomeElseHome) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = xdg != nullptr ? xdg : "";
  setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  EXPECT_EQ(CacheRoot(&error_), "/somewhere/cache/streamcheck");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(CacheRoot(&error_), std::string(std::getenv("HOME")) + "/.cache/streamcheck");
  if (!saved.empty()) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST_F(TorchPluginCache, BuildsOnceThenReusesIt) {
  int building = 0;
  BuildResult first = Ensure(&building);
  ASSERT_TRUE(first.ok) << first.reason;
  EXPECT_TRUE(first.built);
  EXPECT_EQ(building, 1);
  EXPECT_EQ(StateOf(request_.entry, &error_), EntryState::kReady);
  EXPECT_FALSE(fs::exists(request_.entry.partial()));
  EXPECT_FALSE(fs::exists(request_.entry.build_dir())) << "the objects are not kept";
  const BuildResult second = Ensure(&building);
  EXPECT_TRUE(second.ok);
  EXPECT_FALSE(second.built);
  EXPECT_EQ(building, 1) << "no second build, no second message";
  EXPECT_EQ(Runs(), 1);
  request_.force = true;  // `streamcheck plugin build --force`
  EXPECT_TRUE(Ensure(&building).built);
  EXPECT_EQ(Runs(), 2);
}

TEST_F(TorchPluginCache, AFailedBuildSaysWhyOnceAndIsNotRetriedUntilAskedTo) {
  SetMode("fail");
  const BuildResult failed = Ensure();
  ASSERT_FALSE(failed.ok);
  EXPECT_NE(failed.reason.find("the compiler failed"), std::string::npos) << failed.reason;
  EXPECT_NE(failed.reason.find("unknown type name 'boom'"), std::string::npos) << "the compiler's first error";
  EXPECT_EQ(failed.fix, "read the log");
  EXPECT_FALSE(fs::exists(request_.entry.plugin()));
  EXPECT_NE(ReadFile(request_.entry.log()).find("error: unknown type name"), std::string::npos) << "the log stays";
  std::string failure;
  EXPECT_EQ(StateOf(request_.entry, &failure), EntryState::kFailedBefore);
  EXPECT_NE(failure.find("the compiler failed"), std::string::npos);
  // The next process says so at once, without compiling again.
  SetMode("ok");
  const BuildResult again = Ensure();
  EXPECT_FALSE(again.ok);
  EXPECT_NE(again.reason.find("failed before"), std::string::npos) << again.reason;
  EXPECT_NE(again.fix.find("streamcheck plugin build"), std::string::npos) << again.fix;
  EXPECT_EQ(Runs(), 1);
  request_.force = true;
  EXPECT_TRUE(Ensure().ok);
  EXPECT_EQ(StateOf(request_.entry, &failure), EntryState::kReady);
}

TEST_F(TorchPluginCache, WhatIsNotALibraryIsNeverPutInPlace) {
  for (const char* mode : {"garbage", "nothing"}) {
    SetMode(mode);
    request_.force = true;
    const BuildResult result = Ensure();
    EXPECT_FALSE(result.ok) << mode;
    EXPECT_FALSE(fs::exists(request_.entry.plugin())) << mode;
    EXPECT_FALSE(fs::exists(request_.entry.partial())) << mode;
  }
}

TEST_F(TorchPluginCache, AnInterruptedBuildLeavesNeitherPluginNorVerdict) {
  SetMode("killed");
  const BuildResult result = Ensure();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("signal 15"), std::string::npos) << result.reason;
  std::string failure;
  EXPECT_EQ(StateOf(request_.entry, &failure), EntryState::kAbsent) << "the next run tries again";
  EXPECT_FALSE(fs::exists(request_.entry.partial()));
}

TEST_F(TorchPluginCache, ABuildThatTakesTooLongIsStopped) {
  SetMode("slow");
  request_.timeout_seconds = 1;
  const BuildResult result = Ensure();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("longer than 1 s"), std::string::npos) << result.reason;
}

TEST_F(TorchPluginCache, AnUnwritableCacheOrAMissingPythonIsSaidClearly) {
  Write(root_ / "file", "a file where the cache folder would be");
  request_.entry.dir = (root_ / "file" / "streamcheck" / "torch-key").string();
  BuildResult result = Ensure();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("cannot create the cache folder"), std::string::npos) << result.reason;
  EXPECT_NE(result.fix.find("XDG_CACHE_HOME"), std::string::npos) << result.fix;
  request_.entry.dir = (root_ / "cache" / "torch-key").string();
  request_.python = (root_ / "no-such-python").string();
  result = Ensure();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("cannot run"), std::string::npos) << result.reason;
  EXPECT_NE(result.fix.find("--python"), std::string::npos) << result.fix;
}

TEST_F(TorchPluginCache, APluginThatCannotBePutInPlaceIsNotLoaded) {
  fs::create_directories(fs::path(request_.entry.plugin()) / "in-the-way");
  const BuildResult result = Ensure();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("cannot put the plugin in place"), std::string::npos) << result.reason;
  EXPECT_FALSE(fs::exists(request_.entry.partial()));
}

TEST_F(TorchPluginCache, AProcessWaitsForAnotherOnesBuild) {
  fs::create_directories(fs::path(request_.entry.dir).parent_path());
  const int held = open(request_.entry.lock().c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  std::atomic<int> waiting{0};
  BuildResult result;
  std::thread other([&] {
    BuildMessages messages;
    messages.waiting = [&] { ++waiting; };
    result = EnsurePlugin(request_, messages);
  });
  while (waiting == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // The holder finishes its build: the waiter takes its plugin.
  fs::create_directories(request_.entry.dir);
  fs::copy_file("/bin/true", request_.entry.plugin());
  close(held);
  other.join();
  EXPECT_TRUE(result.ok);
  EXPECT_FALSE(result.built);
  EXPECT_EQ(Runs(), 0);
}

TEST_F(TorchPluginCache, SeveralProcessesAtOnceBuildOnce) {
  SetMode("ok", "0.3");
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    const pid_t child = fork();
    if (child == 0) _exit(EnsurePlugin(request_, {}).ok ? 0 : 1);
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(Runs(), 1);
}

TEST_F(TorchPluginCache, AProgramThatReapsItsChildrenStillGetsThePlugin) {
  struct sigaction ignore = {}, saved = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGCHLD, &ignore, &saved);
  const BuildResult result = Ensure();
  sigaction(SIGCHLD, &saved, nullptr);
  EXPECT_TRUE(result.ok) << result.reason;
}

}  // namespace
}  // namespace streamcheck::tracer::torch_plugin
