// tracer/job_place.h: a process's rank from the launchers' variables.
#include "tracer/job_place.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace streamcheck::tracer {
namespace {

JobPlace PlaceWith(const std::map<std::string, std::string>& environment) {
  return JobPlaceFrom(
      [&](const char* name) -> const char* {
        auto it = environment.find(name);
        return it == environment.end() ? nullptr : it->second.c_str();
      },
      "node7");
}

TEST(JobPlace, EachLaunchersRank) {
  EXPECT_EQ(PlaceWith({{"RANK", "3"}, {"LOCAL_RANK", "1"}}).rank, 3);                 // torchrun
  EXPECT_EQ(PlaceWith({{"OMPI_COMM_WORLD_RANK", "5"}}).rank, 5);                      // Open MPI
  EXPECT_EQ(PlaceWith({{"PMI_RANK", "6"}}).rank, 6);                                  // MPICH, Intel MPI
  EXPECT_EQ(PlaceWith({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "1"}}).rank, 7);      // srun
  EXPECT_EQ(PlaceWith({{"PMI_RANK", "2"}, {"SLURM_PROCID", "9"}}).rank_from, "PMI_RANK");
}

TEST(JobPlace, ALocalRankStandsInForAMissingGlobalOne) {
  const JobPlace p = PlaceWith({{"LOCAL_RANK", "1"}});
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.rank_from, "LOCAL_RANK");
  EXPECT_EQ(DescribeJobPlace(p), "rank=1 local_rank=1 host=node7");
}

TEST(JobPlace, NoRankWithoutALauncherOrWithNonsense) {
  EXPECT_EQ(PlaceWith({}).rank, -1);
  EXPECT_EQ(PlaceWith({{"RANK", ""}, {"PMI_RANK", "x1"}, {"SLURM_PROCID", "-2"}}).rank, -1);
  EXPECT_EQ(PlaceWith({{"RANK", "99999999999"}}).rank, -1);
  EXPECT_EQ(PlaceWith({{"RANK", "bad"}, {"OMPI_COMM_WORLD_RANK", "4"}}).rank, 4);
  EXPECT_EQ(DescribeJobPlace(PlaceWith({})), "host=node7");
}

}  // namespace
}  // namespace streamcheck::tracer
