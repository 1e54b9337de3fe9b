// Maps a verdict's raw confidence (the decision stage's own weighing of its evidence)
// to the share of such verdicts that were right on labelled logs.
#include "rule_set.hpp"

namespace gpualert::classify::detail {

double RuleSet::calibrate(double raw) const {
  const auto& c = calibration;
  if (c.empty()) return raw;
  if (raw <= c.front().first) return c.front().second;
  if (raw >= c.back().first) return c.back().second;
  for (std::size_t i = 1; i < c.size(); ++i) {
    if (raw > c[i].first) continue;
    const auto [x0, y0] = c[i - 1];
    const auto [x1, y1] = c[i];
    return y0 + (y1 - y0) * (raw - x0) / (x1 - x0);
  }
  return c.back().second;
}

}  // namespace gpualert::classify::detail
