#!/usr/bin/env python3
"""Builds streamcheck's PyTorch plugin (libstreamcheck_torch.so) for the PyTorch
of the Python that runs this script, with PyTorch's own extension builder
(torch.utils.cpp_extension: its compiler, flags, include and library paths).

The tracer runs it, with the traced program's own Python, the first time a
process has a PyTorch the per-user cache has no plugin for
(tracer/frameworks/torch_plugin_cache.h); `streamcheck plugin build` runs it
ahead of time. It compiles in --build-dir and copies the library to --output;
the caller renames that into place, so a failed or interrupted build never
leaves a plugin behind. Its last words on failure are one line
`streamcheck-plugin-build: error: WHY` and one `streamcheck-plugin-build: fix: HOW`,
which the caller repeats; everything else (the compiler's output) goes to the
build log. --check stops after the checks, before compiling anything.
"""
import argparse
import glob
import os
import shutil
import sys

PREFIX = "streamcheck-plugin-build: "


class BuildError(Exception):
    def __init__(self, why, fix):
        super().__init__(why)
        self.why = why
        self.fix = fix


def import_torch(expected_dir):
    try:
        import torch
    except Exception as e:  # ImportError, or a torch that fails to import
        raise BuildError(f"{sys.executable} cannot import torch ({type(e).__name__}: {e})",
                         "build with the Python that has PyTorch: streamcheck plugin build --python PATH")
    found = os.path.realpath(os.path.dirname(torch.__file__))
    if expected_dir and found != os.path.realpath(expected_dir):
        raise BuildError(f"{sys.executable} imports torch from {found}, not the traced program's {expected_dir}",
                         "build with the program's Python: streamcheck plugin build --python PATH")
    return torch


def extension_builder():
    try:
        from torch.utils import cpp_extension
    except Exception as e:  # Python 3.12+ needs setuptools for it
        raise BuildError(f"PyTorch's extension builder does not import ({type(e).__name__}: {e})",
                         "install setuptools into this Python (pip install setuptools)")
    compiler = os.environ.get("CXX", "c++")
    if shutil.which(compiler) is None:
        raise BuildError(f"no C++ compiler: '{compiler}' is not on PATH (PyTorch's extension builder runs $CXX, "
                         "else c++)", "install one (Debian/Ubuntu: apt-get install g++) or set CXX")
    cuda_home = cpp_extension.CUDA_HOME
    if cuda_home is None or not os.path.exists(os.path.join(cuda_home, "include", "cuda_runtime_api.h")):
        raise BuildError("PyTorch's extension builder finds no CUDA toolkit headers (cuda_runtime_api.h under "
                         f"CUDA_HOME={cuda_home}); the plugin includes PyTorch's CUDA allocator header",
                         "install the CUDA toolkit's headers and set CUDA_HOME to it")
    return cpp_extension


def build(cpp_extension, source_root, build_dir, output):
    from setuptools import Distribution

    sources = sorted(glob.glob(os.path.join(source_root, "tracer", "frameworks", "pytorch", "*.cpp")))
    if not sources:
        raise BuildError(f"no plugin sources under {source_root}", "reinstall streamcheck")
    extension = cpp_extension.CUDAExtension(
        name="libstreamcheck_torch", sources=sources, include_dirs=[source_root],
        extra_compile_args={"cxx": ["-std=c++20", "-O2", "-g0", "-fvisibility=hidden"]})
    # The plugin is loaded into programs that may have no Python (libtorch
    # from C++): PyTorch's Python bindings are left out, and dl is its own.
    extension.libraries = [lib for lib in extension.libraries if lib != "torch_python"] + ["dl"]
    use_ninja = shutil.which("ninja") is not None
    distribution = Distribution({
        "name": "streamcheck_torch_plugin",
        "ext_modules": [extension],
        "cmdclass": {"build_ext": cpp_extension.BuildExtension.with_options(use_ninja=use_ninja)},
    })
    command = distribution.get_command_obj("build_ext")
    command.build_temp = os.path.join(build_dir, "objects")
    command.build_lib = os.path.join(build_dir, "lib")
    try:
        distribution.run_command("build_ext")
    except BaseException as e:  # setuptools raises SystemExit-like errors for compiler failures
        raise BuildError(f"the compiler failed ({type(e).__name__}: {e})",
                         "read the build's log; a missing header names the package to install")
    built = command.get_ext_fullpath(extension.name)
    try:
        shutil.copyfile(built, output)
    except OSError as e:
        raise BuildError(f"cannot write {output}: {e.strerror}",
                         "free space in the cache folder, or point XDG_CACHE_HOME elsewhere")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch-dir", help="the torch package the traced program loaded (checked)")
    parser.add_argument("--source-root", required=True, help="holds tracer/frameworks/pytorch/*.cpp")
    parser.add_argument("--build-dir", help="where to compile")
    parser.add_argument("--output", help="where to copy the plugin")
    parser.add_argument("--check", action="store_true", help="check what the build needs, build nothing")
    args = parser.parse_args()
    try:
        torch = import_torch(args.torch_dir)
        cpp_extension = extension_builder()
        if args.check:
            print(f"{PREFIX}ok: torch {torch.__version__} at {os.path.dirname(torch.__file__)}, "
                  f"compiler {os.environ.get('CXX', 'c++')}, CUDA_HOME {cpp_extension.CUDA_HOME}")
            return 0
        if not args.build_dir or not args.output:
            parser.error("--build-dir and --output are needed to build")
        print(f"{PREFIX}building for torch {torch.__version__} (CUDA {torch.version.cuda}) with {sys.executable}",
              flush=True)
        build(cpp_extension, args.source_root, args.build_dir, args.output)
    except BuildError as e:
        sys.stdout.flush()
        print(f"{PREFIX}error: {e.why}", file=sys.stderr)
        print(f"{PREFIX}fix: {e.fix}", file=sys.stderr)
        return 1
    print(f"{PREFIX}built {args.output}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
