// Maps a verdict's raw confidence (the decision stage's own weighing of its evidence)
// to the share of such verdicts that were right on labelled logs.
#include <algorithm>

#include "rule_set.hpp"

namespace gpualert::classify::detail {

namespace {

double through_points(const std::vector<std::pair<double, double>>& c, double raw) {
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

}  // namespace

double RuleSet::calibrate(double raw, std::string_view cls) const {
  const double mapped = through_points(calibration, raw);
  const auto it = class_offset.find(cls);
  if (it == class_offset.end()) return mapped;
  return std::clamp(mapped + it->second, 0.05, 0.95);
}

}  // namespace gpualert::classify::detail
