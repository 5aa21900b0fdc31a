#include "analyzer/compile_flags.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace streamcheck::lint {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// nvcc spells most options both `-name` and `--long-name`, values either
// separate or after '='.
struct NvccOption {
  std::string_view short_name;
  std::string_view long_name;
  bool takes_value;
};

// Options clang has no use for when parsing the host side; dropped with their value.
constexpr std::array kDropped = {
    NvccOption{"-ccbin", "--compiler-bindir", true},
    NvccOption{"-Xptxas", "--ptxas-options", true},
    NvccOption{"-Xnvlink", "--nvlink-options", true},
    NvccOption{"-Xcudafe", "", true},
    NvccOption{"-Xfatbin", "--fatbin-options", true},
    NvccOption{"-Xarchive", "--archive-options", true},
    NvccOption{"-Xlinker", "--linker-options", true},
    NvccOption{"-maxrregcount", "--maxrregcount", true},
    NvccOption{"-t", "--threads", true},
    NvccOption{"-cudart", "--cudart", true},
    NvccOption{"-cudadevrt", "--cudadevrt", true},
    NvccOption{"-diag-suppress", "--diag-suppress", true},
    NvccOption{"-diag-warn", "--diag-warn", true},
    NvccOption{"-diag-error", "--diag-error", true},
    NvccOption{"-optf", "--options-file", true},  // one ExpandResponseFiles could not read
    NvccOption{"-code", "--gpu-code", true},
    NvccOption{"-odir", "--output-directory", true},
    NvccOption{"-MF", "--dependency-output", true},
    NvccOption{"-MT", "--dependency-target-name", true},
    NvccOption{"-Werror", "--Werror", true},
    NvccOption{"-split-compile", "--split-compile", true},
    NvccOption{"-static-global-template-stub", "--static-global-template-stub", true},
    NvccOption{"-keep-dir", "--keep-dir", true},
    NvccOption{"-time", "--time", true},  // clang's -time means something else
    NvccOption{"-Ofc", "--Ofast-compile", true},
    NvccOption{"-dopt", "--dopt", true},
    NvccOption{"-compress-mode", "--compress-mode", true},
    NvccOption{"", "--machine", true},
    NvccOption{"-jtd", "--jump-table-density", true},
    NvccOption{"", "--frandom-seed", true},
    NvccOption{"-dsp", "--device-stack-protector", true},
    NvccOption{"-entries", "--entries", true},
    NvccOption{"-optimization-info", "--optimization-info", true},
    NvccOption{"-ldir", "--libdevice-directory", true},
    NvccOption{"-target-dir", "--target-directory", true},
    NvccOption{"-idp", "--input-drive-prefix", true},
    NvccOption{"-ddp", "--dependency-drive-prefix", true},
    NvccOption{"-dp", "--drive-prefix", true},
    NvccOption{"-hls", "--host-linker-script", true},
    NvccOption{"-split-compile-extended", "--split-compile-extended", true},
    NvccOption{"-fdevice-time-trace", "--fdevice-time-trace", true},
    NvccOption{"-dlto", "--dlink-time-opt", false},
    NvccOption{"-lto", "--lto", false},
    NvccOption{"-gen-opt-lto", "--gen-opt-lto", false},
    NvccOption{"-ptx", "--ptx", false},
    NvccOption{"-cubin", "--cubin", false},
    NvccOption{"-fatbin", "--fatbin", false},
    NvccOption{"-optix-ir", "--optix-ir", false},
    NvccOption{"-dryrun", "--dryrun", false},
    NvccOption{"-v", "--verbose", false},  // clang's -v would print its own setup
    NvccOption{"-noprof", "--dont-use-profile", false},
    NvccOption{"-use-local-env", "--use-local-env", false},
    NvccOption{"-ewp", "--extensible-whole-program", false},
    NvccOption{"-restrict", "--restrict", false},
    NvccOption{"-src-in-ptx", "--source-in-ptx", false},
    NvccOption{"-keep-device-functions", "--keep-device-functions", false},
    NvccOption{"-extra-device-vectorization", "--extra-device-vectorization", false},
    NvccOption{"-fdevice-syntax-only", "--fdevice-syntax-only", false},
    NvccOption{"-no-host-device-initializer-list", "--no-host-device-initializer-list", false},
    NvccOption{"-no-host-device-move-forward", "--no-host-device-move-forward", false},
    NvccOption{"-expt-extended-lambda", "--expt-extended-lambda", false},
    NvccOption{"-objtemp", "--objdir-as-tempprefix", false},
    NvccOption{"-expt-relaxed-constexpr", "--expt-relaxed-constexpr", false},
    NvccOption{"-extended-lambda", "--extended-lambda", false},
    NvccOption{"-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", false},
    NvccOption{"-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", false},
    NvccOption{"-allow-unsupported-compiler", "--allow-unsupported-compiler", false},
    NvccOption{"-keep", "--keep", false},
    NvccOption{"-res-usage", "--resource-usage", false},
    NvccOption{"-lineinfo", "--generate-line-info", false},
    NvccOption{"-G", "--device-debug", false},
    NvccOption{"-use_fast_math", "--use_fast_math", false},
    NvccOption{"-MD", "--generate-dependencies-with-compile", false},
    NvccOption{"-MMD", "--generate-nonsystem-dependencies-with-compile", false},
    NvccOption{"-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", false},
    NvccOption{"-Wno-deprecated-declarations", "--Wno-deprecated-declarations", false},
    NvccOption{"-err-no", "--display-error-number", false},
    NvccOption{"-no-compress", "--no-compress", false},
};

// Matches `arg` against an option; on a match sets *value (from "=v" or the
// next argument, advancing *i) and returns true.
bool Match(const std::vector<std::string>& argv, size_t* i, std::string_view short_name,
           std::string_view long_name, bool takes_value, std::string* value) {
  const std::string& arg = argv[*i];
  for (std::string_view name : {short_name, long_name}) {
    if (name.empty()) continue;
    if (arg == name) {
      if (takes_value && *i + 1 < argv.size()) *value = argv[++*i];
      return true;
    }
    if (takes_value && StartsWith(arg, name) && arg.size() > name.size() && arg[name.size()] == '=') {
      *value = arg.substr(name.size() + 1);
      return true;
    }
  }
  return false;
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// "sm_80", "compute_80", "sm_90a" -> "sm_80"...; "" for native/all/unknown.
std::string ClangArch(std::string arch) {
  if (StartsWith(arch, "compute_")) arch = "sm_" + arch.substr(8);
  if (StartsWith(arch, "lto_")) arch = "sm_" + arch.substr(4);
  return StartsWith(arch, "sm_") ? arch : std::string();
}

// -gencode arch=compute_80,code=[sm_80,compute_80] -> sm_80
std::string GencodeArch(const std::string& spec) {
  std::string arch, code;
  std::string s = spec;
  for (char& c : s) {
    if (c == '[' || c == ']' || c == '"' || c == '\'') c = ' ';
  }
  std::string* target = nullptr;
  for (const std::string& part : SplitCommas(s)) {
    std::string p = part;
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    while (!p.empty() && p.back() == ' ') p.pop_back();
    if (StartsWith(p, "arch=")) {
      target = &arch;
      p = p.substr(5);
    } else if (StartsWith(p, "code=")) {
      target = &code;
      p = p.substr(5);
    }
    if (target != nullptr && target->empty() && !ClangArch(p).empty() && !StartsWith(p, "compute_")) {
      *target = ClangArch(p);
    } else if (target == &arch && arch.empty()) {
      arch = ClangArch(p);
    }
  }
  return !code.empty() ? code : arch;
}

bool IsCudaSource(std::string_view file) {
  return EndsWith(file, ".cu") || EndsWith(file, ".cuh");
}

bool IsCppSource(std::string_view file) {
  return EndsWith(file, ".cpp") || EndsWith(file, ".cc") || EndsWith(file, ".cxx") || EndsWith(file, ".C") ||
         EndsWith(file, ".c++");
}

}  // namespace

std::string FindCudaToolkit() {
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') candidates.push_back(v);
  }
  candidates.push_back("/usr/local/cuda");
  std::error_code ec;
  for (const std::string& c : candidates) {
    if (fs::exists(fs::path(c) / "include" / "cuda_runtime.h", ec)) return c;
  }
  return {};
}

bool IsNvcc(const std::string& program) {
  const std::string base = std::filesystem::path(program).filename().string();
  return base == "nvcc" || base == "nvcc.exe" || EndsWith(base, "-nvcc");
}

std::vector<std::string> TranslateNvccCommand(const std::vector<std::string>& argv) {
  std::vector<std::string> out = {"clang++"};
  bool have_arch = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    std::string value;
    bool dropped = false;
    for (const NvccOption& opt : kDropped) {
      if (Match(argv, &i, opt.short_name, opt.long_name, opt.takes_value, &value)) {
        dropped = true;
        break;
      }
    }
    if (dropped) continue;
    if (Match(argv, &i, "-arch", "--gpu-architecture", true, &value)) {
      if (std::string a = ClangArch(value); !a.empty() && !have_arch) {
        out.push_back("--cuda-gpu-arch=" + a);
        have_arch = true;
      }
    } else if (Match(argv, &i, "-gencode", "--generate-code", true, &value)) {
      if (std::string a = GencodeArch(value); !a.empty() && !have_arch) {
        out.push_back("--cuda-gpu-arch=" + a);
        have_arch = true;
      }
    } else if (Match(argv, &i, "-Xcompiler", "--compiler-options", true, &value)) {
      // Comma-separated, and CMake also quotes a space-separated list into one value.
      for (const std::string& part : SplitCommas(value)) {
        for (std::string& f : SplitCommandLine(part)) out.push_back(std::move(f));
      }
    } else if (Match(argv, &i, "-rdc", "--relocatable-device-code", true, &value)) {
      if (value == "true") out.push_back("-fgpu-rdc");
    } else if (arg == "-dc" || arg == "--device-c") {
      out.push_back("-fgpu-rdc");
      out.push_back("-c");
    } else if (arg == "-dw" || arg == "--device-w") {
      out.push_back("-c");
    } else if (Match(argv, &i, "-x", "--x", true, &value)) {
      out.push_back("-x");
      out.push_back(value == "cu" ? "cuda" : value);
    } else if (Match(argv, &i, "-std", "--std", true, &value)) {
      out.push_back("-std=" + value);
    } else if (Match(argv, &i, "-default-stream", "--default-stream", true, &value)) {
      // nvcc defines CUDA_API_PER_THREAD_DEFAULT_STREAM for per-thread (the runtime
      // headers then pick the _ptds entry points); clang's flag does not define it.
      if (value == "per-thread") out.push_back("-fgpu-default-stream=per-thread");
    } else if (Match(argv, &i, "", "--include-path", true, &value)) {
      out.push_back("-I" + value);
    } else if (StartsWith(arg, "-isystem=")) {
      // CMake writes nvcc's `-isystem=DIR`; to clang a leading '=' means the sysroot.
      out.push_back("-isystem");
      out.push_back(arg.substr(9));
    } else if (Match(argv, &i, "-ftemplate-depth", "--ftemplate-depth", true, &value)) {
      out.push_back("-ftemplate-depth=" + value);
    } else if (Match(argv, &i, "-ftemplate-backtrace-limit", "--ftemplate-backtrace-limit", true, &value)) {
      out.push_back("-ftemplate-backtrace-limit=" + value);
    } else if (arg == "-noeh" || arg == "--no-exceptions") {
      out.push_back("-fno-exceptions");
    } else if (Match(argv, &i, "", "--system-include", true, &value)) {
      out.push_back("-isystem");
      out.push_back(value);
    } else if (Match(argv, &i, "", "--define-macro", true, &value)) {
      out.push_back("-D" + value);
    } else if (Match(argv, &i, "", "--undefine-macro", true, &value)) {
      out.push_back("-U" + value);
    } else if (Match(argv, &i, "-include", "--pre-include", true, &value)) {
      out.push_back("-include");
      out.push_back(value);
    } else if (Match(argv, &i, "", "--output-file", true, &value)) {
      out.push_back("-o");
      out.push_back(value);
    } else if (arg == "--compile") {
      out.push_back("-c");
    } else if (Match(argv, &i, "-ftz", "--ftz", true, &value) ||
               Match(argv, &i, "-prec-div", "--prec-div", true, &value) ||
               Match(argv, &i, "-prec-sqrt", "--prec-sqrt", true, &value) ||
               Match(argv, &i, "-fmad", "--fmad", true, &value)) {
      // device code generation only
    } else if (Match(argv, &i, "-L", "--library-path", true, &value) ||
               Match(argv, &i, "-l", "--library", true, &value)) {
      // link-time only
    } else if (StartsWith(arg, "-W") && !StartsWith(arg, "-Wl,")) {
      // nvcc's warning flags mean something else to clang; the lint adds -w anyway.
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

bool UsesCudaSyntax(const std::string& file) {
  std::ifstream in(file);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  for (const char* word : {"<<<", "__global__", "threadIdx", "blockIdx", "__shared__"}) {
    if (s.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> PrepareClangCommand(std::vector<std::string> argv, const std::string& file,
                                             const CudaSetup& setup) {
  if (!argv.empty() && IsNvcc(argv[0])) argv = TranslateNvccCommand(argv);
  bool cuda = IsCudaSource(file);
  // A C file of the project (gcc -std=gnu11 ...) is parsed as C.
  std::vector<std::string> out = {EndsWith(file, ".c") ? "clang" : "clang++"};
  bool explicit_language = false;
  bool device_only = false;
  bool have_resource_dir = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    // Outputs, dependency files and -Werror: the lint writes nothing and must
    // not fail on the project's own warnings.
    if (arg == "-o" || arg == "-MF" || arg == "-MT" || arg == "-MQ") {
      ++i;
      continue;
    }
    if (StartsWith(arg, "-o") || arg == "-c" || arg == "-S" || arg == "-E" || arg == "-M" ||
        arg == "-MM" || arg == "-MD" || arg == "-MMD" || StartsWith(arg, "-Werror") ||
        arg == "-fsyntax-only") {
      continue;
    }
    if (arg == "-x" && i + 1 < argv.size()) {
      explicit_language = true;
      if (argv[i + 1] == "cuda" || argv[i + 1] == "cu") cuda = true;
      out.push_back(arg);
      out.push_back(argv[++i] == "cu" ? "cuda" : argv[i]);
      continue;
    }
    if (arg == "--cuda-device-only") device_only = true;
    // nvcc --default-stream per-thread defines this macro (the runtime headers
    // then pick the _ptds entry points, and the lint reads handle 0 as the
    // per-thread stream); clang's spelling of the flag does not, for CUDA.
    if (arg == "-fgpu-default-stream=per-thread") out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
    if (StartsWith(arg, "-resource-dir")) have_resource_dir = true;
    out.push_back(arg);
  }
  // A C++ file with CUDA syntax in it is compiled as CUDA by its build
  // (CMake's LANGUAGE CUDA, nvcc -x cu): parse it so.
  if (!cuda && !explicit_language && IsCppSource(file) && UsesCudaSyntax(file)) cuda = true;
  // Every error is worth its place: the functions it is in are named, and
  // clang's default of stopping after 20 would leave the rest unparsed.
  std::vector<std::string> added = {"-fsyntax-only", "-w", "-ferror-limit=0"};
  std::vector<std::string> trailing;  // after the command's own flags
  if (!have_resource_dir && !setup.resource_dir.empty()) {
    added.push_back("-resource-dir=" + setup.resource_dir);
  }
  if (cuda) {
    if (!explicit_language) {
      added.push_back("-x");
      added.push_back("cuda");
    }
    const std::string cuda_path = setup.cuda_path.empty() ? FindCudaToolkit() : setup.cuda_path;
    if (!cuda_path.empty()) {
      added.push_back("--cuda-path=" + cuda_path);
      // CUDA 13 keeps Thrust/CUB/libcu++ under include/cccl, which nvcc adds
      // itself, after the command's own include directories: a project that
      // brings a newer CCCL (rapids-cmake adds it with -isystem) is parsed
      // with its own, as nvcc compiles it. Directories of one kind are
      // searched in command-line order, so this one goes last.
      std::error_code ec;
      if (std::filesystem::is_directory(std::filesystem::path(cuda_path) / "include" / "cccl", ec)) {
        trailing.push_back("-isystem");
        trailing.push_back(cuda_path + "/include/cccl");
      }
    }
    if (setup.host_only && !device_only) added.push_back("--cuda-host-only");
    added.push_back("-Wno-unknown-cuda-version");
    added.push_back("-include");
    added.push_back(std::string(kPreludeDir) + "/nvcc_host_prelude.h");
  } else if (const std::string cuda_path = setup.cuda_path.empty() ? FindCudaToolkit() : setup.cuda_path;
             !cuda_path.empty()) {
    // A .cpp file that includes cuda_runtime.h, as the samples' main.cpp files
    // do, or Thrust's or libcu++'s headers (CUDA 13 keeps them in include/cccl),
    // as a library's host code does: after the command's own directories, a
    // last resort where the build said nothing.
    added.push_back("-idirafter");
    added.push_back(cuda_path + "/include");
    std::error_code ec;
    if (std::filesystem::is_directory(std::filesystem::path(cuda_path) / "include" / "cccl", ec)) {
      added.push_back("-idirafter");
      added.push_back(cuda_path + "/include/cccl");
    }
  }
  added.push_back("-idirafter");
  added.push_back(std::string(kPreludeDir) + "/fallback");
  out.insert(out.begin() + 1, added.begin(), added.end());
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

std::vector<std::string> DefaultCommand(const std::string& file,
                                        const std::vector<std::string>& extra_flags) {
  std::vector<std::string> argv = {"clang++"};
  bool have_std = false;
  for (const std::string& f : extra_flags) have_std |= StartsWith(f, "-std=");
  // nvcc's default dialect; clang's CUDA default (gnu++17) is close but not the same.
  if (!have_std) argv.push_back("-std=c++17");
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.push_back(file);
  return argv;
}

std::vector<std::string> ExpandResponseFiles(const std::vector<std::string>& argv, const std::string& directory) {
  namespace fs = std::filesystem;
  const auto read = [&](const std::string& name, std::vector<std::string>* out) {
    fs::path path(name);
    if (path.is_relative() && !directory.empty()) path = fs::path(directory) / path;
    std::ifstream in(path);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    for (std::string& word : SplitCommandLine(text.str())) out->push_back(std::move(word));
    return true;
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if ((arg == "--options-file" || arg == "-optf") && i + 1 < argv.size() && read(argv[i + 1], &out)) {
      ++i;
    } else if (StartsWith(arg, "--options-file=") && read(arg.substr(15), &out)) {
    } else if (i > 0 && arg.size() > 1 && arg[0] == '@' && read(arg.substr(1), &out)) {
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

std::vector<std::string> SplitCommandLine(const std::string& command) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size()) {
        cur += command[++i];
      } else {
        cur += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      cur += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

}  // namespace streamcheck::lint
