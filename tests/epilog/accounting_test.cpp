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

// The job's owner picks JobName and WorkDir (and step names): any byte, '|' and
// newlines included. query_job splits on a random delimiter the owner cannot know.
namespace {

std::string rec(const std::vector<std::string>& f, const std::string& d) {
  std::string s;
  for (std::size_t i = 0; i < f.size(); ++i) s += (i ? d : "") + f[i];
  return s + "\n";
}

std::vector<std::string> job57(const std::string& name, const std::string& workdir = "/home/alice") {
  return {"57", name, "FAILED", "1:0", "0:0", "00:05:00", "01:00:00", "n1", "gpu", "alice",
          "2026-11-22T05:00:00", "2026-11-22T05:05:00", workdir};
}

std::vector<std::string> step57(const std::string& id, const std::string& name) {
  return {id, name, "FAILED", "1:0", "", "", "", "", "", "", "", "", ""};
}

}  // namespace

TEST(SacctForgery, PipesInTheNameAreNotFields) {
  const std::string d = sacct_delimiter();
  const std::string forged = "a|COMPLETED|0:0|0:0|00:00:01|UNLIMITED|vm|debug|root|2026-11-22T05:00:00|2026-11-22T05:00:01|/";
  const auto a = parse_sacct(rec(job57(forged), d), "57", d);
  ASSERT_TRUE(a.available) << a.error;
  EXPECT_EQ(a.state, "FAILED");
  EXPECT_EQ(a.exit_code, "1:0");
  EXPECT_EQ(a.user, "alice");
  EXPECT_EQ(a.name, forged);
  EXPECT_EQ(a.workdir, "/home/alice");
}

TEST(SacctForgery, NewlinesInNamesAndWorkDirStartNoRecord) {
  const std::string d = sacct_delimiter();
  const std::string fake_job = "x\n57|COMPLETED|0:0|0:0|00:00:01|UNLIMITED|vm|debug|root|||/";
  const std::string fake_step = "py\n57.7" + std::string("|COMPLETED|0:0||||||||||");
  const std::string workdir = "/w\n57|COMPLETED|0:0|0:0|00:00:01|UNLIMITED|vm|debug|root|||/\n57.8";
  const std::string out = rec(job57(fake_job, workdir), d) + rec(step57("57.batch", "batch"), d) +
                          rec(step57("57.0", fake_step), d);
  const auto a = parse_sacct(out, "57", d);
  ASSERT_TRUE(a.available) << a.error;
  EXPECT_EQ(a.state, "FAILED");
  EXPECT_EQ(a.user, "alice");
  EXPECT_EQ(a.name, fake_job);
  EXPECT_EQ(a.workdir, workdir);
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.steps[0].id, "57.batch");
  EXPECT_EQ(a.steps[1].id, "57.0");
  EXPECT_EQ(a.steps[1].name, fake_step);
  EXPECT_EQ(a.steps[1].state, "FAILED");
}

TEST(SacctForgery, ControllerKeysInTheNameAreJustText) {
  const std::string d = sacct_delimiter();
  const auto a = parse_sacct(rec(job57("x Restarts=9 MailUser=root@evil"), d), "57", d);
  ASSERT_TRUE(a.available);
  EXPECT_EQ(a.name, "x Restarts=9 MailUser=root@evil");
  EXPECT_EQ(a.state, "FAILED");
}

TEST(SacctForgery, OutputThatDoesNotSplitIntoRecordsIsRefused) {
  // With '|' a name holding '|' shifts every field: refused, not misread.
  const auto a = parse_sacct(rec(job57("a|COMPLETED|0:0"), "|"), "57");
  EXPECT_FALSE(a.available);
  EXPECT_NE(a.error.find("whole records"), std::string::npos) << a.error;
  const std::string d = sacct_delimiter();
  EXPECT_FALSE(parse_sacct(rec(job57("n"), d) + "57", "57", d).available);  // text after the last record
  auto bad = job57("n");
  bad[2] = "completed";
  EXPECT_FALSE(parse_sacct(rec(bad, d), "57", d).available);
  bad = job57("n");
  bad[3] = "0";
  EXPECT_FALSE(parse_sacct(rec(bad, d), "57", d).available);
}

TEST(SacctForgery, OnlyThisJobAndItsStepsCount) {
  const std::string d = sacct_delimiter();
  auto other = job57("n");
  other[0] = "570";
  auto odd_step = step57("57.0 x", "n");
  const auto a = parse_sacct(rec(other, d) + rec(job57("n"), d) + rec(step57("570.0", "n"), d) + rec(odd_step, d), "57", d);
  ASSERT_TRUE(a.available);
  EXPECT_EQ(a.job_id, "57");
  EXPECT_TRUE(a.steps.empty());
}

TEST(SacctForgery, AHeterogeneousLeaderSeesItsComponentsAndTheirSteps) {
  const std::string d = sacct_delimiter();
  auto comp = job57("n");
  comp[0] = "58";
  const std::string out = rec(job57("n"), d) + rec(step57("57.batch", "n"), d) + rec(comp, d) + rec(step57("58.0", "n"), d);
  const auto a = parse_sacct(out, "57", d, true);
  ASSERT_TRUE(a.available);
  EXPECT_EQ(a.components, std::vector<std::uint32_t>{58});
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.steps[1].id, "58.0");
  // The same answer for a job that is not heterogeneous: 58 is someone else's.
  const auto b = parse_sacct(out, "57", d, false);
  EXPECT_TRUE(b.components.empty());
  EXPECT_EQ(b.steps.size(), 1u);
}

TEST(SacctForgery, DelimitersAreFreshAndPlain) {
  const std::string a = sacct_delimiter(), b = sacct_delimiter();
  EXPECT_NE(a, b);
  EXPECT_GE(a.size(), 32u);
  EXPECT_EQ(a.find_first_of("\n|"), std::string::npos);
}
