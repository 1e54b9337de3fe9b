#pragma once
// Records of several named metrics on one line ("Step [1520/4039]: [ avg_rd: nan | cur_rd:
// nan | avg_mse: nan | ... | iter_time: 1.19 s/it"), whatever the metrics are called. A loss
// that is not named "loss" (a rate-distortion "rd", an "elbo") is not read as a loss; but
// when most of a record's metrics turn non-finite, and stay so to the last record, the
// training's numbers have died, whichever of them was the loss.
#include <cstdint>
#include <string_view>

namespace gpualert::classify::detail {

class MetricRecords {
 public:
  // MAY_BE_NONFINITE: the line holds a "nan" or "inf" word (the fast matcher's cue).
  void feed(std::string_view line, std::uint64_t lineno, bool may_be_nonfinite);

  // Records with every metric finite were seen (counted only while they matter).
  bool any_finite() const { return finite_ != 0; }
  // The newest records have at least three non-finite metrics, two thirds of those printed:
  // how many in a row, from which line, and how many metrics the first of them held.
  std::uint64_t streak() const { return streak_; }
  std::uint64_t streak_start() const { return streak_start_; }
  unsigned streak_nonfinite() const { return streak_nonfinite_; }
  unsigned streak_metrics() const { return streak_metrics_; }

 private:
  std::uint64_t finite_ = 0, streak_ = 0, streak_start_ = 0;
  unsigned streak_nonfinite_ = 0, streak_metrics_ = 0;
};

}  // namespace gpualert::classify::detail
