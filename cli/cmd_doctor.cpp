#include "cli/cmd_doctor.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/doctor_checks.h"
#include "cli/exit_code.h"
#include "cli/install_paths.h"

namespace streamcheck::cli {
namespace {

// The folder above bin/ (a build tree's: above cli/).
std::string InstallationRoot() { return std::filesystem::path(OwnDirectory()).parent_path().string(); }

struct DoctorRequest {
  DoctorOptions options;
  std::string need = "run";
  bool json = false;
};

// --need's words: capability names, `run` for the core, `all`.
bool ParseNeeds(const std::string& list, std::set<std::string>* needs, std::string* error) {
  std::istringstream words(list);
  for (std::string word; std::getline(words, word, ',');) {
    const std::vector<std::string>& names = CapabilityNames();
    if (word == "run") {
      needs->insert(CoreCapabilities().begin(), CoreCapabilities().end());
    } else if (word == "all") {
      needs->insert(names.begin(), names.end());
    } else if (std::find(names.begin(), names.end(), word) != names.end()) {
      needs->insert(word);
    } else {
      *error = "--need: no capability is named '" + word + "'";
      return false;
    }
  }
  return true;
}

void PrintText(const std::vector<Capability>& found, const std::set<std::string>& needs,
               const std::vector<std::string>& missing, const std::string& need) {
  fmt::print("streamcheck {}, installed in {}\n", STREAMCHECK_VERSION, InstallationRoot());
  for (const Capability& c : found) {
    fmt::print("  {:<8} {}{}", c.name, c.ok ? "ok: " : "missing: ", c.detail);
    if (!c.ok) fmt::print(". Fix: {}", c.fix);
    fmt::print("{}\n", !c.ok && needs.count(c.name) ? " [needed]" : "");
  }
  if (missing.empty()) {
    fmt::print("everything --need {} asks for is here\n", need);
    return;
  }
  std::string names;
  for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
  fmt::print("missing for --need {}: {}\n", need, names);
}

void PrintJson(const std::vector<Capability>& found, const std::set<std::string>& needs,
               const std::vector<std::string>& missing) {
  nlohmann::json capabilities = nlohmann::json::array();
  for (const Capability& c : found) {
    nlohmann::json entry = {{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}, {"needed", needs.count(c.name) > 0}};
    if (!c.ok) entry["fix"] = c.fix;
    capabilities.push_back(entry);
  }
  const nlohmann::json out = {{"version", STREAMCHECK_VERSION},
                              {"installation", InstallationRoot()},
                              {"capabilities", capabilities},
                              {"missing_needed", missing}};
  fmt::print("{}\n", out.dump(2));
}

int Doctor(const DoctorRequest& r) {
  std::set<std::string> needs;
  std::string error;
  if (!ParseNeeds(r.need, &needs, &error)) {
    fmt::print(stderr, "streamcheck doctor: {} (names: run, all, driver, tracer, cupti, preload, guards, precise, "
               "pytorch, lint)\n", error);
    return kExitUsage;
  }
  const std::vector<Capability> found = CheckEverything(r.options);
  std::vector<std::string> missing;
  for (const Capability& c : found)
    if (!c.ok && needs.count(c.name)) missing.push_back(c.name);
  if (r.json) {
    PrintJson(found, needs, missing);
  } else {
    PrintText(found, needs, missing, r.need);
  }
  return missing.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void AddDoctorCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "doctor",
      "Say what this installation can do on this machine, one line per capability, with the reason and the fix "
      "where one is missing. Exit 0 when everything --need names is there, 1 when some is missing.");
  auto r = std::make_shared<DoctorRequest>();
  cmd->add_option("--need", r->need,
                  "comma-separated: run (the default: driver, tracer, cupti, preload), guards, precise, pytorch, "
                  "lint, any single one of those, or all")
      ->capture_default_str();
  cmd->add_option("--python", r->options.python, "the Python whose PyTorch the plugin line is about")
      ->capture_default_str();
  cmd->add_flag("--json", r->json, "print the capabilities as JSON");
  cmd->callback([r] { SetExitCode(Doctor(*r)); });
}

}  // namespace streamcheck::cli
