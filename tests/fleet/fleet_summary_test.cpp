// The operator's summary: classes with their GPU-hours, faults on the GPU the kernel
// named (a node's own faults on the node), users' repeated failures with the fix.
#include <gtest/gtest.h>

#include "gpualert/fleet/fleet_summary.hpp"
#include "gpualert/fleet/report_format.hpp"

using namespace gpualert::fleet;

namespace {

JobRecord job(std::uint64_t id, const std::string& user, const std::string& cls, const std::string& attr,
              std::uint64_t gpus, std::int64_t elapsed, std::vector<std::string> bad = {}) {
  JobRecord j;
  j.job_id = id;
  j.user = user;
  j.nodes = "gpu007";
  j.state = cls == "healthy" ? "COMPLETED" : "FAILED";
  j.gpus = gpus;
  j.elapsed = elapsed;
  if (!cls.empty()) {
    AccountingVerdict v;
    v.cls = cls;
    v.attribution = attr;
    v.confidence = 0.9;
    v.node = "gpu007";
    v.gpus = {"0000:1b:00", "0000:3b:00"};
    v.bad = std::move(bad);
    j.verdict = v;
  }
  return j;
}

TEST(FleetSummary, ClassesFaultsAndUsers) {
  FleetAggregator agg;
  // One GPU fault under three jobs, a node failure, two users' own failures, one job unjudged.
  agg.add(job(1, "ann", "gpu_hardware", "infra", 2, 3600, {"0000:3b:00"}));
  agg.add(job(2, "bob", "gpu_hardware", "infra", 2, 3600, {"0000:3b:00"}));
  agg.add(job(3, "cat", "gpu_hardware", "infra", 2, 3600, {"0000:3b:00"}));
  agg.add(job(4, "ann", "node_fail", "infra", 2, 3600));
  agg.add(job(5, "bob", "cuda_oom", "job", 4, 1800));
  agg.add(job(6, "bob", "cuda_oom", "job", 4, 1800));
  agg.add(job(7, "bob", "missing_module", "job", 1, 60));
  agg.add(job(8, "dan", "", "", 8, 3600));
  const auto s = agg.finish([](const std::string& c) { return c == "cuda_oom" ? "smaller batches" : ""; }, 10);
  EXPECT_EQ(s.jobs, 8u);
  EXPECT_EQ(s.with_verdict, 7u);
  EXPECT_NEAR(s.gpu_hours, 2 * 4 + 4 * 0.5 * 2 + 1.0 / 60 + 8, 1e-9);
  ASSERT_FALSE(s.classes.empty());
  EXPECT_EQ(s.classes[0].cls, "gpu_hardware");
  EXPECT_EQ(s.classes[0].jobs, 3u);
  ASSERT_EQ(s.faults.size(), 2u);
  EXPECT_EQ(s.faults[0].gpu, "0000:3b:00");  // the GPU the kernel named, not every GPU of the job
  EXPECT_EQ(s.faults[0].jobs, 3u);
  EXPECT_EQ(s.faults[0].users, (std::vector<std::string>{"ann", "bob", "cat"}));
  EXPECT_EQ(s.faults[1].gpu, "");  // node_fail: the node
  ASSERT_EQ(s.users.size(), 1u);
  EXPECT_EQ(s.users[0].user, "bob");
  EXPECT_EQ(s.users[0].cls, "cuda_oom");
  EXPECT_EQ(s.users[0].jobs, 2u);
  EXPECT_EQ(s.users[0].job_failures, 3u);
  EXPECT_EQ(s.users[0].fix, "smaller batches");
  const std::string text = report_text(s, "test");
  EXPECT_NE(text.find("scontrol update nodename=gpu007 state=drain"), std::string::npos) << text;
  EXPECT_NE(text.find("(no verdict)"), std::string::npos) << text;
  const std::string csv = report_csv(s);
  EXPECT_EQ(csv.rfind("section,name,detail,jobs,gpu_hours,share\r\n", 0), 0u);
  EXPECT_NE(csv.find("fault,gpu007,0000:3b:00,3"), std::string::npos) << csv;
}

TEST(FleetSummary, ALongColumnNeverRunsIntoTheNext) {
  // The jobs without a verdict list their Slurm states where whose move stands; the
  // count after them must stay a number of its own ("REQUEUED 3" then "146", not "3146").
  FleetAggregator agg;
  const char* states[] = {"COMPLETED", "FAILED", "REQUEUED", "OUT_OF_MEMORY"};
  for (std::uint64_t i = 0; i < 146; ++i) {
    JobRecord j = job(100 + i, "eve", "", "", 1, 60);
    j.state = states[i % 4];
    agg.add(j);
  }
  const std::string text = report_text(agg.finish([](const std::string&) { return ""; }, 10), "test");
  const auto at = text.find("(no verdict)");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string line = text.substr(at, text.find('\n', at) - at);
  EXPECT_NE(line.find("REQUEUED 36 146"), std::string::npos) << line;
}

}  // namespace
