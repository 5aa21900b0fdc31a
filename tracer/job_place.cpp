#include "tracer/job_place.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <initializer_list>

namespace streamcheck::tracer {
namespace {

// A non-negative decimal that fits an int32; -1 otherwise.
int32_t Rank(const char* text) {
  if (text == nullptr || *text == '\0') return -1;
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0 || value > INT32_MAX) return -1;
  return static_cast<int32_t>(value);
}

int32_t FirstRank(const EnvironmentLookup& getenv, std::initializer_list<const char*> names, std::string* from) {
  for (const char* name : names)
    if (const int32_t rank = Rank(getenv(name)); rank >= 0) {
      if (from) *from = name;
      return rank;
    }
  return -1;
}

}  // namespace

JobPlace JobPlaceFrom(const EnvironmentLookup& getenv, std::string host) {
  JobPlace place;
  place.host = std::move(host);
  place.rank = FirstRank(getenv,
                         {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
                          "SLURM_PROCID"},
                         &place.rank_from);
  place.local_rank =
      FirstRank(getenv, {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"},
                place.rank < 0 ? &place.rank_from : nullptr);
  if (place.rank < 0) place.rank = place.local_rank;
  return place;
}

JobPlace JobPlaceOfThisProcess() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return JobPlaceFrom([](const char* name) { return std::getenv(name); }, host);
}

std::string DescribeJobPlace(const JobPlace& place) {
  std::string text;
  auto add = [&text](const std::string& field) { text += (text.empty() ? "" : " ") + field; };
  if (place.rank >= 0) add("rank=" + std::to_string(place.rank));
  if (place.local_rank >= 0) add("local_rank=" + std::to_string(place.local_rank));
  if (!place.host.empty()) add("host=" + place.host);
  return text;
}

}  // namespace streamcheck::tracer
