// The loss curve a verdict carries for pictures: bounded, evenly thinned, its first
// non-finite value and its newest values always kept, and the printed steps beside them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "loss_tracker.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

using detail::LossTracker;

TEST(LossCurve, StaysBoundedAndEvenOverAMillionValues) {
  LossTracker t;
  for (std::uint64_t i = 1; i <= 1000000; ++i) t.add("loss", std::to_string(10.0 / static_cast<double>(i)), i);
  const auto pts = t.overview();
  EXPECT_LE(pts.size(), LossTracker::kOverview + 2);
  EXPECT_GE(pts.size(), LossTracker::kOverview / 2);
  EXPECT_EQ(pts.front().line, 1u);
  EXPECT_EQ(pts.back().line, 1000000u) << "the newest value ends the picture";
  // Evenly spaced: every gap but the last one is the same stride.
  const auto stride = pts[1].line - pts[0].line;
  for (std::size_t i = 1; i + 2 < pts.size(); ++i) EXPECT_EQ(pts[i + 1].line - pts[i].line, stride) << i;
}

TEST(LossCurve, KeepsTheFirstNonFiniteValueAndTheLastFiniteOne) {
  LossTracker t;
  std::uint64_t line = 0;
  for (int i = 0; i < 5001; ++i) t.add("loss", "0.5", ++line);
  const std::uint64_t last_finite = line;
  t.add("loss", "nan", ++line);
  const std::uint64_t first_nan = line;
  for (int i = 0; i < 4000; ++i) t.add("loss", "nan", ++line);
  bool saw_first_nan = false, saw_last_finite = false;
  for (const auto& p : t.overview()) {
    saw_first_nan |= p.line == first_nan && std::isnan(p.value);
    saw_last_finite |= p.line == last_finite && p.value == 0.5;
  }
  EXPECT_TRUE(saw_first_nan);
  EXPECT_TRUE(saw_last_finite);
}

TEST(LossCurve, TheVerdictCarriesTheStepsPrinted) {
  std::string log;
  for (int s = 1; s <= 50; ++s) log += "step " + std::to_string(s * 10) + "/500 | loss " + std::to_string(3.0 / s) + "\n";
  const Verdict v = run(log, 0);
  ASSERT_EQ(v.loss_curve.points.size(), 50u);
  EXPECT_EQ(v.loss_curve.total, 50u);
  EXPECT_EQ(v.loss_curve.key, "loss");
  EXPECT_EQ(v.loss_curve.points.front().step, 10u);
  EXPECT_EQ(v.loss_curve.points.back().step, 500u);
  EXPECT_EQ(v.loss_curve.points.back().line, 50u);
  EXPECT_EQ(run("no loss here\n", 0).loss_curve.points.size(), 0u);
}

}  // namespace
}  // namespace gpualert::classify::test
