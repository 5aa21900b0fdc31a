"""Every library the Debian package's files need comes from a package it
names (Depends or Recommends), from the package itself, or from the two that
no Debian package provides: the NVIDIA driver's libcuda.so.1 and the CUDA
toolkit's libcupti (debian_package.cmake says why); and the C library
version its Depends asks for is at least the newest its files use.
Usage: check_deb_dependencies.py PACKAGE.deb UNPACKED_ROOT"""
import os
import re
import subprocess
import sys

NOT_DEBIANS = re.compile(r"^(libcuda\.so\.1|libcupti\.so\.\d+)$")


def field(deb, name):
    text = subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True, text=True, check=True).stdout
    return {re.split(r"[ (]", p.strip())[0] for p in text.split(",") if p.strip()}


def glibc_version_needed(path):
    """The newest GLIBC_x.y symbol version the file uses, as a tuple."""
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True).stdout
    versions = [tuple(int(n) for n in v.split(".")) for v in re.findall(r"GLIBC_(\d+\.\d+(?:\.\d+)?)", out)]
    return max(versions, default=(0,))


def declared_glibc(deb):
    text = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"libc6 \(>= ([\d.]+)\)", text)
    return tuple(int(n) for n in match.group(1).split(".")) if match else (0,)


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out), re.findall(r"R(?:UN)?PATH\).*\[([^\]]+)\]", out)


def provider(library, run_paths, origin):
    """The Debian package that has the file the loader would find."""
    for run_path in run_paths:
        for folder in run_path.split(":"):
            candidate = os.path.join(folder.replace("$ORIGIN", origin), library)
            if os.path.exists(candidate):
                return candidate
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    match = re.search(r"^\s+" + re.escape(library) + r" \(libc6,x86-64\) => (\S+)$", cache, re.M)
    return match.group(1) if match else None


def main():
    deb, root = sys.argv[1], sys.argv[2]
    declared = field(deb, "Depends") | field(deb, "Recommends")
    libc = declared_glibc(deb)
    problems = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
            if glibc_version_needed(path) > libc:
                problems.append(f"{path} uses GLIBC_{'.'.join(map(str, glibc_version_needed(path)))}, newer than "
                                f"the libc6 (>= {'.'.join(map(str, libc))}) the package depends on")
            libraries, run_paths = needed(path)
            for library in libraries:
                if NOT_DEBIANS.match(library):
                    continue
                found = provider(library, run_paths, folder)
                if found is None:
                    problems.append(f"{path}: {library} is found nowhere")
                    continue
                if os.path.realpath(found).startswith(os.path.realpath(root)):
                    continue  # bundled
                owner = subprocess.run(["dpkg", "-S", os.path.realpath(found)], capture_output=True, text=True)
                if owner.returncode != 0:
                    owner = subprocess.run(["dpkg", "-S", found], capture_output=True, text=True)
                package = owner.stdout.split(":")[0].strip() if owner.returncode == 0 else None
                if package not in declared | {"libc6"}:
                    problems.append(f"{path}: {library} ({found}) is in {package}, which the package does not name")
    if problems:
        sys.exit("\n".join(problems))
    print(f"deb dependencies: every library needed comes from {sorted(declared)}, the package, or the "
          f"driver/toolkit; libc6 >= {'.'.join(map(str, libc))} covers the GLIBC versions used")


if __name__ == "__main__":
    main()
