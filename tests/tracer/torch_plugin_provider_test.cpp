// tracer/frameworks/torch_plugin_provider.h in a process that has a
// PyTorch (a stand-in libtorch_cuda.so in a torch/lib/ folder with its
// version.py): the plugin built into the cache on first use with one line
// said, found there after, the builder run without the tracer's injection and
// preload, and a failed build said in one line with its fix.
#include "tracer/frameworks/torch_plugin_provider.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "tests/common/temp_dir.h"

namespace streamcheck::tracer {
namespace {

namespace fs = std::filesystem;

// What build_torch_plugin.py is to the tracer: FAKE_FAIL fails it; it notes
// its arguments and what it was given of the tracer's environment.
constexpr const char* kFakeBuilder = R"(import os, shutil, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
with open(os.path.join(os.path.dirname(sys.argv[0]), "builder-saw"), "w") as f:
    f.write("torch-dir=%s\n" % args["--torch-dir"])
    f.write("injection=%s\n" % os.environ.get("CUDA_INJECTION64_PATH", ""))
    f.write("preload=%s\n" % os.environ.get("LD_PRELOAD", ""))
if os.environ.get("FAKE_FAIL"):
    print("streamcheck-plugin-build: error: no C++ compiler: 'c++' is not on PATH", file=sys.stderr)
    print("streamcheck-plugin-build: fix: install one", file=sys.stderr)
    sys.exit(1)
shutil.copyfile(os.environ["FAKE_PLUGIN"], args["--output"])
)";

using streamcheck::testing::ReadFile;

class TorchPluginProvider : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path torch = fs::path(FAKE_TORCH_CUDA).parent_path().parent_path();
    std::ofstream(torch / "version.py") << "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n";
    fs::create_directories(torch / "share/cmake/Torch");
    std::ofstream(torch / "share/cmake/Torch/TorchConfig.cmake") << "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")\n";
    ASSERT_NE(dlopen(FAKE_TORCH_CUDA, RTLD_NOW), nullptr) << dlerror();
    // A build tree's tracer folder: the builder, and the sources through a folder.
    std::ofstream(tracer_ / "build_torch_plugin.py") << kFakeBuilder;
    const fs::path sources = fs::path(tracer_.str()) / "torch_plugin_source/tracer/frameworks/pytorch";
    fs::create_directories(sources);
    std::ofstream(sources / "torch_plugin.cpp") << "int plugin;\n";
    Set("XDG_CACHE_HOME", cache_.str());
    Set("FAKE_PLUGIN", FAKE_TORCH_CUDA);  // any shared library will do
    Set("CUDA_INJECTION64_PATH", "/somewhere/libstreamcheck_tracer.so");
    Set("LD_PRELOAD", "/somewhere/libstreamcheck_preload.so:/other/libkept.so");
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_)
      value.empty() ? unsetenv(name.c_str()) : setenv(name.c_str(), value.c_str(), 1);
  }
  void Set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old != nullptr ? old : "");
    setenv(name.c_str(), value.c_str(), 1);
  }
  // ProvideTorchPlugin's result; what it wrote to stderr in *said.
  std::string Provide(std::string* said) {
    const std::string file = stderr_ / "stderr";
    std::fflush(stderr);
    const int saved = dup(2);
    const int out = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 2);
    const std::string path = ProvideTorchPlugin(tracer_.str());
    std::fflush(stderr);
    dup2(saved, 2);
    close(out);
    close(saved);
    *said = ReadFile(file);
    return path;
  }

  testing::TempDir tracer_, cache_, stderr_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(TorchPluginProvider, BuildsOnFirstUseSaysSoOnceAndReusesIt) {
  std::string said;
  const std::string plugin = Provide(&said);
  ASSERT_FALSE(plugin.empty()) << said;
  EXPECT_TRUE(fs::is_regular_file(plugin));
  EXPECT_EQ(plugin.rfind(cache_.str() + "/streamcheck/torch-2.11.0+cu130-cuda13.0-abi1-streamcheck", 0), 0u) << plugin;
  EXPECT_EQ(said.find("streamcheck: building the PyTorch plugin for PyTorch 2.11.0+cu130 (CUDA 13.0, C++11 ABI) once, "
                      "into "),
            0u)
      << said;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  const std::string saw = ReadFile(tracer_ / "builder-saw");
  EXPECT_NE(saw.find("torch-dir=" + fs::path(FAKE_TORCH_CUDA).parent_path().parent_path().string() + "\n"),
            std::string::npos)
      << saw;
  EXPECT_NE(saw.find("injection=\n"), std::string::npos) << "the builder is not traced: " << saw;
  EXPECT_NE(saw.find("preload=/other/libkept.so\n"), std::string::npos) << saw;
  EXPECT_EQ(Provide(&said), plugin);
  EXPECT_EQ(said, "") << "found in the cache: nothing to say";
}

TEST_F(TorchPluginProvider, AFailedBuildIsOneLineWithTheFix) {
  Set("FAKE_FAIL", "1");
  std::string said;
  EXPECT_EQ(Provide(&said), "");
  EXPECT_NE(said.find("\nstreamcheck: no PyTorch plugin for PyTorch 2.11.0+cu130 (CUDA 13.0, C++11 ABI): no C++ "
                      "compiler: 'c++' is not on PATH. Fix: install one. Tracing at the CUDA level until then"),
            std::string::npos)
      << said;
  EXPECT_EQ(Provide(&said), "");
  EXPECT_NE(said.find("its build failed before: no C++ compiler"), std::string::npos) << said;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << "no second build, one line: " << said;
}

}  // namespace
}  // namespace streamcheck::tracer
