#pragma once
// The loss curve a verdict carries, made ready to draw: which axis (steps or log
// lines), the finite values, where the loss went non-finite, and what to mark.
#include <optional>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::report {

struct XY {
  double x = 0, y = 0;
  std::uint64_t line = 0;
};

struct LossSeries {
  std::string key;           // "loss"
  bool by_step = false;      // x is the printed step; else the log line
  std::vector<XY> finite;    // in order
  std::optional<XY> first_nonfinite;  // y unused
  double x_end = 0;                   // the last value's x, finite or not
  std::uint64_t total = 0;   // values printed in all
  // What the verdict points at on the curve, when anything: "first NaN", "lowest, then rising"...
  std::optional<XY> mark;
  std::string mark_label;
};

// Nothing when fewer than 3 values were printed: no curve worth drawing.
std::optional<LossSeries> loss_series(const classify::Verdict& v);

// "2.31 (step 100) -> 0.41 (step 8400)": a point as a reader names it.
std::string point_name(const LossSeries& s, const XY& p);
std::string loss_value_text(double v);
// A log scale once the values span more than two decades: a fall from 2.3 to 0.4 stays
// visible beside a rise to 100.
bool wants_log_scale(double lo, double hi);

// One line of text: "loss ▇▆▅▄▃▂▁▁ 2.31 (step 100) → 0.41 (step 8400); NaN from step 8500".
std::string sparkline(const LossSeries& s);

}  // namespace gpualert::report
