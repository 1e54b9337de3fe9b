// The done-but-bad checks through the classifier: each finds its class, and their
// documented precedence decides when two would (correctness before throughput; the
// throughput checks need a real exit status).
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

std::string steps_with(const std::string& extra_every_step, int n = 12) {
  std::string out;
  for (int i = 1; i <= n; ++i)
    out += "step " + std::to_string(i) + " loss " + std::to_string(3.0 / i) + extra_every_step + "\n";
  return out;
}

TEST(DoneButBad, CorrectnessComesBeforeThroughput) {
  // A rising loss and CUDA_LAUNCH_BLOCKING=1: the loss is the verdict.
  std::string log = "CUDA_LAUNCH_BLOCKING=1\n";
  for (int i = 1; i <= 12; ++i) log += "step " + std::to_string(i) + " loss " + std::to_string(1.0 + i) + "\n";
  EXPECT_EQ(run(log, 0).cls, "divergence");
  EXPECT_EQ(run("CUDA_LAUNCH_BLOCKING=1\n" + steps_with(""), 0).cls, "throughput_bound");
}

TEST(DoneButBad, ThroughputNeedsARealExitStatus) {
  const std::string log = "CUDA_LAUNCH_BLOCKING=1\n" + steps_with("") + "Training complete.\n";
  EXPECT_EQ(run(log, 0).cls, "throughput_bound");
  EXPECT_EQ(run(log, std::nullopt).cls, "healthy") << "a pasted log's own end line says nothing of its timings";
}

TEST(DoneButBad, DataWaitIsSeenInAnyStretchOnlyWhenItDominates) {
  const std::string starved = steps_with(" step_time: 1.00s data_time: 0.90s");
  EXPECT_EQ(run(starved, 0).cls, "underutilized");
  EXPECT_EQ(run(starved, std::nullopt).cls, "underutilized");
  const std::string half = steps_with(" step_time: 1.00s data_time: 0.55s");
  EXPECT_EQ(run(half, 0).cls, "underutilized");
  EXPECT_NE(run(half, std::nullopt).cls, "underutilized");
}

}  // namespace
}  // namespace gpualert::classify::test
