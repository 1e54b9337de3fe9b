#include <gtest/gtest.h>

#include "job_facts.hpp"
#include "slurm_accounting.hpp"

using namespace gpualert::epilog;

TEST(Sacct, ParsesJobAndSteps) {
  const std::string out =
      "57|train|CANCELLED by 1001|0:0|0:15|00:01:07|00:01:00|vm|debug|alice|2026-11-22T05:00:00|"
      "2026-11-22T05:01:07|/home/alice\n"
      "57.batch|batch|CANCELLED|0:15|||||||||\n"
      "57.0|python3|CANCELLED|0:15|||||||||\n";
  const auto a = parse_sacct(out, "57");
  EXPECT_TRUE(a.available);
  EXPECT_TRUE(a.final);
  EXPECT_EQ(a.state, "CANCELLED");
  EXPECT_EQ(a.state_detail, "CANCELLED by 1001");
  EXPECT_EQ(a.derived_exit_code, "0:15");
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.steps[1].id, "57.0");
}

TEST(Sacct, CompletingIsNotFinalAndOtherJobsAreIgnored) {
  const auto a = parse_sacct("5|x|COMPLETING|0:0|0:0|00:00:01|UNLIMITED|vm|debug|a|||/\n", "5");
  EXPECT_TRUE(a.available);
  EXPECT_FALSE(a.final);
  const auto b = parse_sacct("55|x|FAILED|1:0|0:0|00:00:01|UNLIMITED|vm|debug|a|||/\n", "5");
  EXPECT_FALSE(b.available);
  EXPECT_TRUE(is_final_state("TIMEOUT"));
  EXPECT_TRUE(is_final_state("OUT_OF_MEMORY"));
  EXPECT_FALSE(is_final_state("RUNNING"));
}

TEST(Elapsed, SlurmFormats) {
  EXPECT_EQ(parse_elapsed("00:01:07")->count(), 67000);
  EXPECT_EQ(parse_elapsed("1-02:00:00")->count(), 26LL * 3600 * 1000);
  EXPECT_EQ(parse_elapsed("05:30")->count(), 330000);
  EXPECT_FALSE(parse_elapsed("soon"));
}
