#include "tracer/frameworks/torch_plugin_provider.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>
#include <vector>

#include "tracer/frameworks/torch_plugin_cache.h"

extern char** environ;

namespace streamcheck::tracer {
namespace {

using namespace torch_plugin;

// The path of a loaded library, by its file name.
std::string LoadedLibraryPath(const char* file_name) {
  struct Search {
    const char* file_name;
    std::string path;
  } search{file_name, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const char* slash = info->dlpi_name != nullptr ? std::strrchr(info->dlpi_name, '/') : nullptr;
        if (slash == nullptr || std::strcmp(slash + 1, s->file_name) != 0) return 0;
        s->path = info->dlpi_name;
        return 1;
      },
      &search);
  return search.path;
}

std::string Utf8(const wchar_t* text) {
  std::string out;
  for (; *text != 0; ++text) {
    const auto c = static_cast<uint32_t>(*text);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// The Python this program runs in (sys.executable, a virtual environment's
// own path included), which is the one that has this PyTorch; a program
// without Python (libtorch from C++) gets the python3 on PATH.
std::string ProgramPython() {
  using ProgramFullPath = const wchar_t* (*)();
  if (auto full_path = reinterpret_cast<ProgramFullPath>(dlsym(RTLD_DEFAULT, "Py_GetProgramFullPath")))
    if (const wchar_t* path = full_path(); path != nullptr && *path != 0) return Utf8(path);
  return "python3";
}

// The program's environment, less what would trace the builder too.
std::vector<std::string> BuilderEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("CUDA_INJECTION64_PATH=", 0) == 0) continue;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      std::string kept;
      size_t begin = std::strlen("LD_PRELOAD=");
      while (begin <= entry.size()) {
        size_t end = entry.find_first_of(": ", begin);
        if (end == std::string::npos) end = entry.size();
        const std::string library = entry.substr(begin, end - begin);
        const size_t slash = library.rfind('/');
        if (!library.empty() && library.substr(slash == std::string::npos ? 0 : slash + 1) != "libstreamcheck_preload.so")
          kept += (kept.empty() ? "" : ":") + library;
        begin = end + 1;
      }
      if (!kept.empty()) out.push_back("LD_PRELOAD=" + kept);
      continue;
    }
    out.push_back(entry);
  }
  return out;
}

void SayNoPlugin(const std::string& torch, const std::string& reason, const std::string& fix) {
  std::fprintf(stderr,
               "streamcheck: no PyTorch plugin for %s: %s. Fix: %s. Tracing at the CUDA level until then (no op "
               "names, Python stacks or caching-allocator reuse)\n",
               torch.c_str(), reason.c_str(), fix.c_str());
}

}  // namespace

std::string ProvideTorchPlugin(const std::string& tracer_dir) {
  const std::string library = LoadedLibraryPath("libtorch_cuda.so");
  TorchBuild torch;
  std::string error;
  if (library.empty() || !ReadTorchBuild(TorchDirOfLibrary(library), &torch, &error)) {
    SayNoPlugin("this PyTorch", "cannot tell which PyTorch it is (" + (library.empty() ? "libtorch_cuda.so has no path" : error) + ")",
                "build the plugin beside the tracer with scripts/build-torch-plugin.sh");
    return "";
  }
  PluginSources sources;
  const std::string root = CacheRoot(&error);
  if (!FindPluginSources(tracer_dir, &sources, &error) || root.empty()) {
    SayNoPlugin(Describe(torch), error, root.empty() ? "set XDG_CACHE_HOME or HOME" : "reinstall streamcheck");
    return "";
  }
  BuildRequest request;
  request.entry.dir = root + "/" + CacheKey(torch, STREAMCHECK_VERSION, SourceDigest(sources.source_root));
  request.torch = torch;
  request.sources = sources;
  request.python = ProgramPython();
  request.environment = BuilderEnvironment();
  BuildMessages messages;
  messages.building = [&] {
    std::fprintf(stderr,
                 "streamcheck: building the PyTorch plugin for %s once, into %s (a minute or two; later runs reuse "
                 "it)\n",
                 Describe(torch).c_str(), request.entry.dir.c_str());
  };
  messages.waiting = [&] {
    std::fprintf(stderr, "streamcheck: waiting for another process to build the PyTorch plugin into %s\n",
                 request.entry.dir.c_str());
  };
  const BuildResult result = EnsurePlugin(request, messages);
  if (result.ok) return request.entry.plugin();
  SayNoPlugin(Describe(torch), result.reason, result.fix);
  return "";
}

}  // namespace streamcheck::tracer
