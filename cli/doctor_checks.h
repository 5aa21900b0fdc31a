// What `streamcheck doctor` checks: one capability of this installation on
// this machine each. Every check that loads or runs something does it in a
// child process (child_process.h), so a missing driver, a broken library or
// a hanging Python is a line of the report, never a crash of doctor.
#pragma once

#include <string>
#include <vector>

namespace streamcheck::cli {

struct Capability {
  std::string name;    // as --need names it
  bool ok = false;
  std::string detail;  // ok: what there is; missing: why not
  std::string fix;     // missing: how to get it
};

struct DoctorOptions {
  std::string python = "python3";  // whose PyTorch the plugin is for
};

// driver (with the CUDA versions), tracer, cupti, preload, guards, precise,
// pytorch, lint: in that order.
std::vector<Capability> CheckEverything(const DoctorOptions& options);

// The names --need accepts, and what `run` (the default) stands for.
const std::vector<std::string>& CapabilityNames();
const std::vector<std::string>& CoreCapabilities();

}  // namespace streamcheck::cli
