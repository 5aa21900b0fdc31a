#include "store/pending_writes.h"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "store/database.h"

namespace streamcheck::store {
namespace {

constexpr std::string_view kPendingInfix = ".pending-";
constexpr std::string_view kPartial = ".tmp";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void RemoveDatabaseFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
}

}  // namespace

void PendingWrites::Clear() {
  findings_.clear();
  counts_.clear();
  counters_.clear();
  roots_.clear();
  end_status_.reset();
}

void PendingWrites::AddFinding(size_t owner, const Process& process, uint64_t local_id, const Finding& finding) {
  findings_.push_back({owner, process, local_id, finding});
}

bool PendingWrites::UpdatePendingCount(int64_t process, uint64_t local_id, uint64_t count) {
  for (PendingFinding& f : findings_) {
    if (f.process.id == process && f.local_id == local_id) {
      f.finding.count = count;
      return true;
    }
  }
  return false;
}

void PendingWrites::AddCount(const Process& process, uint64_t local_id, uint64_t count) {
  for (PendingCount& c : counts_) {
    if (c.process.id == process.id && c.local_id == local_id) {
      c.count = count;
      return;
    }
  }
  counts_.push_back({process, local_id, count});
}

void PendingWrites::AddCounters(const Process& process, std::string category,
                                const std::map<std::string, uint64_t>& counts) {
  counters_.push_back({process, std::move(category), counts});
}

std::optional<std::map<size_t, uint64_t>> PendingWrites::WriteTo(Store& store, int64_t run, int busy_timeout_ms) {
  std::map<size_t, uint64_t> written;
  store.database().SetBusyTimeout(busy_timeout_ms);
  const bool ok = store.InOneTransaction([&] {
    for (const PendingFinding& f : findings_) {
      if (store.AddFinding(run, f.process.id, f.local_id, f.finding) < 0) return false;
      ++written[f.owner];
    }
    for (const PendingCount& c : counts_)
      if (!store.SetFindingCount(run, c.process.id, c.local_id, c.count)) return false;
    for (const PendingCounters& c : counters_)
      if (!store.AddCounters(run, c.process.id, c.category, c.counts)) return false;
    if (!store.AddSourceRoots(run, roots_)) return false;
    return !end_status_ || store.EndRun(run, *end_status_);
  });
  store.database().SetBusyTimeout(store.busy_timeout_ms());
  if (!ok) return std::nullopt;
  Clear();
  return written;
}

std::string PendingWrites::Spill(const std::string& db_path, const StoredRun& run, std::string* error) {
  const std::string path = fmt::format("{}{}{}-{}", db_path, kPendingInfix, ::getpid(), spills_ + 1);
  const std::string temp = path + std::string(kPartial);
  {
    auto spill = Store::Open(temp, error, {.busy_timeout_ms = 0});
    if (!spill) return "";
    const int64_t id = spill->BeginRun(run.info);
    std::map<int64_t, int64_t> processes;  // the database's process id -> the file's
    auto process_of = [&](const Process& p) -> int64_t {
      if (p.id == 0) return 0;
      auto [it, fresh] = processes.try_emplace(p.id, 0);
      if (fresh) it->second = std::max<int64_t>(spill->AddProcess(id, p.info), 0);
      return it->second;
    };
    const bool ok = id > 0 && spill->InOneTransaction([&] {
      for (const PendingFinding& f : findings_)
        if (spill->AddFinding(id, process_of(f.process), f.local_id, f.finding) < 0) return false;
      for (const PendingCount& c : counts_) {
        Finding count_only;
        count_only.rule = kCountOnlyRule;
        count_only.count = c.count;
        if (spill->AddFinding(id, process_of(c.process), c.local_id, count_only) < 0) return false;
      }
      for (const PendingCounters& c : counters_)
        if (!spill->AddCounters(id, process_of(c.process), c.category, c.counts)) return false;
      if (!spill->AddSourceRoots(id, roots_)) return false;
      return !end_status_ || spill->EndRun(id, *end_status_);
    });
    if (!ok) {
      *error = spill->last_error();
      spill.reset();
      RemoveDatabaseFiles(temp);
      return "";
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = fmt::format("{}: cannot rename into place", temp);
    RemoveDatabaseFiles(temp);
    return "";
  }
  ++spills_;
  Clear();
  return path;
}

std::vector<std::string> PendingFiles(const std::string& db_path) {
  const size_t slash = db_path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : db_path.substr(0, slash);
  const std::string prefix = (slash == std::string::npos ? db_path : db_path.substr(slash + 1)) +
                             std::string(kPendingInfix);
  std::vector<std::string> files;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return files;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.substr(0, prefix.size()) != prefix || EndsWith(name, kPartial)) continue;
    if (EndsWith(name, "-wal") || EndsWith(name, "-shm") || EndsWith(name, "-journal")) continue;
    files.push_back(folder + "/" + std::string(name));
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

uint64_t FindingsOfRunIn(const std::vector<std::string>& files, const StoredRun& run, std::vector<std::string>* holding) {
  uint64_t findings = 0;
  for (const std::string& file : files) {
    std::string why;
    std::unique_ptr<Store> pending = Store::Open(file, &why, {.read_only = true, .create_if_missing = false});
    if (!pending) continue;
    Statement q = pending->database().Prepare(
        "SELECT count(*) FROM findings f JOIN runs r ON r.id = f.run_id WHERE f.rule <> ? AND r.start_time_ns = ? "
        "AND r.mode = ? AND r.command = ? AND r.host = ? AND r.tool_version = ?");
    q.Bind(1, std::string_view(kCountOnlyRule)).Bind(2, run.info.start_time_ns).Bind(3, run.info.mode);
    q.Bind(4, run.info.command).Bind(5, run.info.host).Bind(6, run.info.tool_version);
    const int64_t n = q.Step() ? q.Int(0) : 0;
    if (n <= 0) continue;
    findings += static_cast<uint64_t>(n);
    holding->push_back(file);
  }
  return findings;
}

uint64_t FoldPendingFiles(Store& store, std::string* error) {
  uint64_t added = 0;
  for (const std::string& file : PendingFiles(store.path())) {
    std::string why;
    std::unique_ptr<Store> pending = Store::OpenExisting(file, &why);
    MergeStats stats;
    if (!pending || !MergeInto(store, *pending, &stats, &why)) {
      *error = fmt::format("the findings kept in {} could not be folded into {}: {}", file, store.path(), why);
      continue;
    }
    pending.reset();
    RemoveDatabaseFiles(file);
    added += static_cast<uint64_t>(stats.findings);
  }
  return added;
}

}  // namespace streamcheck::store
