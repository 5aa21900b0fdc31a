// The PyTorch plugin built where it runs: a plugin is compiled against one
// PyTorch (its version, its CUDA, its C++ ABI), so an installation ships the
// plugin's sources and builds it, once, into a per-user cache the first time a
// traced process has a PyTorch it has no plugin for (torch_plugin_provider.h);
// `streamcheck plugin build` does the same ahead of time.
//
//   ${XDG_CACHE_HOME:-~/.cache}/streamcheck/<key>/libstreamcheck_torch.so
//
// The key names the PyTorch, its CUDA and ABI, streamcheck's version and a
// digest of the sources. A plugin appears under its name only by a rename
// after a build that succeeded, so no half-written plugin is ever loaded; a
// lock beside the entry makes the ranks of a job build it once. A build that
// failed leaves its reason (build-failed) and its log (build.log): later runs
// say so at once instead of compiling again, until `streamcheck plugin build`.
// Nothing here needs CUDA or PyTorch: tests drive it with a stand-in builder.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace streamcheck::tracer::torch_plugin {

inline constexpr const char* kPluginFile = "libstreamcheck_torch.so";
inline constexpr const char* kBuilderFile = "build_torch_plugin.py";

// What the plugin must be built for, read from PyTorch's installed files
// (torch/version.py, torch/share/cmake/Torch/TorchConfig.cmake): no Python.
struct TorchBuild {
  std::string torch_dir;  // the torch package folder (lib/libtorch_cuda.so, version.py)
  std::string version;    // torch.__version__, e.g. "2.11.0+cu130"
  std::string cuda;       // torch.version.cuda, e.g. "13.0"; "" for none
  std::string cxx11_abi;  // "1" or "0" (_GLIBCXX_USE_CXX11_ABI); "" when PyTorch does not say
};
bool ReadTorchBuild(const std::string& torch_dir, TorchBuild* out, std::string* error);
// ".../torch/lib/libtorch_cuda.so" -> ".../torch".
std::string TorchDirOfLibrary(const std::string& library_path);
// "PyTorch 2.11.0+cu130 (CUDA 13.0, C++11 ABI)": how messages name it.
std::string Describe(const TorchBuild& torch);

// The builder (build_torch_plugin.py) and the sources it compiles: beside
// the tracer and in share/ when installed, beside the tracer and in the
// source tree (through a link) in a build tree.
struct PluginSources {
  std::string builder;
  std::string source_root;  // holds tracer/frameworks/pytorch/*.cpp and the headers they include
};
bool FindPluginSources(const std::string& tracer_dir, PluginSources* out, std::string* error);
// A digest of every file under source_root/tracer: other sources, another plugin.
std::string SourceDigest(const std::string& source_root);

// ${XDG_CACHE_HOME:-$HOME/.cache}/streamcheck; "" with `error` when neither is set.
std::string CacheRoot(std::string* error);
std::string CacheKey(const TorchBuild& torch, std::string_view streamcheck_version, std::string_view source_digest);

struct CacheEntry {
  std::string dir;  // CacheRoot()/CacheKey()
  std::string plugin() const { return dir + "/" + kPluginFile; }
  std::string partial() const { return dir + "/" + kPluginFile + ".partial"; }
  std::string failure() const { return dir + "/build-failed"; }
  std::string log() const { return dir + "/build.log"; }
  std::string build_dir() const { return dir + "/build"; }
  std::string lock() const { return dir + ".lock"; }
};

enum class EntryState { kReady, kFailedBefore, kAbsent };
// kFailedBefore sets *failure to what the failed build left: its reason.
EntryState StateOf(const CacheEntry& entry, std::string* failure);

struct BuildRequest {
  CacheEntry entry;
  TorchBuild torch;
  PluginSources sources;
  std::string python;                    // runs the builder: the program's own Python where it has one
  std::vector<std::string> environment;  // the builder's, "NAME=value" (the caller leaves the tracer's out)
  int timeout_seconds = 1800;
  bool force = false;  // build again over a plugin or a failed build
};

struct BuildResult {
  bool ok = false;
  bool built = false;   // this call built it (else it was there, or another process built it)
  std::string reason;   // why not, in a clause: "no C++ compiler: ..."
  std::string fix;      // what to do about it
};

// What the builder said last in its output (its log): why it failed, and
// the fix; empty when it said nothing of the kind.
struct BuilderVerdict {
  std::string why;
  std::string fix;
};
BuilderVerdict ReadBuilderVerdict(const std::string& output);

// What a caller says while the build goes on: `building` once before the
// builder starts; `waiting` when another process holds the entry's lock.
struct BuildMessages {
  std::function<void()> building;
  std::function<void()> waiting;
};

// The plugin of request.entry, built unless it is there (or failed before and
// !force). Several processes may call it at once: one builds, the others wait.
BuildResult EnsurePlugin(const BuildRequest& request, const BuildMessages& messages);

}  // namespace streamcheck::tracer::torch_plugin
