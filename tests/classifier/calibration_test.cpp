// Confidence calibration: a rule file's "calibration" points map the decision stage's raw
// confidence to how often such verdicts were right; bad points are refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

fs::path rule_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("gpualert-calibration-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p) << text;
  return p;
}

TEST(Calibration, PointsMapRawConfidenceByLinearSteps) {
  const auto f = rule_file("flat.json", R"({"schema": 1, "calibration": {"points": [[0.2, 0.3], [0.6, 0.7]]}})");
  const Classifier c = Classifier::with_builtin_rules({f});
  const std::string log = "ModuleNotFoundError: No module named 'flash_attn'\n";
  auto raw = Classifier::with_builtin_rules({f});
  raw.set_raw_confidence(true);
  const double r = raw.classify_text(log, exit_status(1)).confidence;
  const double expect = r <= 0.2 ? 0.3 : r >= 0.6 ? 0.7 : 0.3 + (r - 0.2);
  EXPECT_NEAR(c.classify_text(log, exit_status(1)).confidence, expect, 1e-9);
  fs::remove(f);
}

TEST(Calibration, AClassOffsetMovesThatClassAloneAndStaysWithinBounds) {
  const auto g = rule_file("over.json", R"({"schema": 1, "calibration": {"points": [[0.0, 0.6], [1.0, 0.6]],
                                            "by_class": {"segfault": 0.5}}})");
  const Classifier off = Classifier::with_builtin_rules({g});
  const Verdict seg = off.classify_text("Segmentation fault (core dumped)\n", exit_status(139));
  ASSERT_EQ(seg.cls, "segfault");
  EXPECT_NEAR(seg.confidence, 0.95, 1e-9) << "0.6 + 0.5, kept at 0.95";
  const Verdict mod = off.classify_text("ModuleNotFoundError: No module named 'flash_attn'\n", exit_status(1));
  EXPECT_NEAR(mod.confidence, 0.6, 1e-9) << "another class: the map alone";
  fs::remove(g);
  const auto h = rule_file("down.json", R"({"schema": 1, "calibration": {"points": [[0.0, 0.6], [1.0, 0.6]],
                                            "by_class": {"missing_module": -0.2}}})");
  const Verdict down = Classifier::with_builtin_rules({h}).classify_text(
      "ModuleNotFoundError: No module named 'flash_attn'\n", exit_status(1));
  ASSERT_EQ(down.cls, "missing_module");
  EXPECT_NEAR(down.confidence, 0.4, 1e-9);
  fs::remove(h);
}

TEST(Calibration, UnknownKeepsItsRawConfidence) {
  const auto f = rule_file("high.json", R"({"schema": 1, "calibration": {"points": [[0.0, 0.9], [1.0, 0.95]]}})");
  const Classifier c = Classifier::with_builtin_rules({f});
  const Verdict v = c.classify_text("nothing to see\n", exit_status(1));
  EXPECT_EQ(v.cls, "unknown");
  EXPECT_LT(v.confidence, 0.5);
  fs::remove(f);
}

TEST(Calibration, BadPointsAreRefusedWithTheFileNamed) {
  for (const char* bad : {R"({"schema": 1, "calibration": {"points": [[0.5, 0.6], [0.4, 0.7]]}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4, 0.8], [0.5, 0.7]]}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4, 1.2]]}})",
                          R"({"schema": 1, "calibration": {"points": []}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4]]}})",
                          R"({"schema": 1, "calibration": {"pionts": [[0.4, 0.5]]}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4, 0.5]], "by_class": {"no_such": 0.1}}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4, 0.5]], "by_class": {"segfault": 0.7}}})",
                          R"({"schema": 1, "calibration": {"points": [[0.4, 0.5]], "by_class": {"segfault": "x"}}})",
                          R"({"schema": 1, "calibration": {"by_class": {"segfault": 0.1}}})"}) {
    const auto f = rule_file("bad.json", bad);
    try {
      (void)Classifier::with_builtin_rules({f});
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    }
    fs::remove(f);
  }
}

TEST(Calibration, TheBuiltInMapKeepsTheOrderOfRawConfidences) {
  // Calibration may squeeze confidences together, never reverse them.
  const std::string weak = "step 1 loss 2.0\nstep 2 loss 1.9\n";  // a bare SIGKILL: suspected OOM kill
  const std::string strong = "[ 4821.5] Out of memory: Killed process 40822 (python) total-vm:8923144kB\n";
  EXPECT_LT(raw_confidence(weak, -9), raw_confidence(strong, -9, "OUT_OF_MEMORY"));
  EXPECT_LE(run(weak, -9).confidence, run(strong, -9, "OUT_OF_MEMORY").confidence);
  EXPECT_LE(run(strong, -9, "OUT_OF_MEMORY").confidence, 0.95);
}

}  // namespace
}  // namespace gpualert::classify::test
