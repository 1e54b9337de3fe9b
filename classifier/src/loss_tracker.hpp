#pragma once
// The loss trajectory, kept bounded: the first and last values, counts, and where
// the loss first went non-finite. It decides healthy vs divergence vs nan_loss.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::classify::detail {

struct LossPoint {
  std::uint64_t line = 0;
  double value = 0;
};

class LossTracker {
 public:
  static constexpr std::size_t kKeep = 64;
  // KEY is the metric name as printed ("loss", "train_loss", "lm loss"); the first
  // training-loss key seen is tracked, validation/eval losses are ignored.
  bool add(std::string_view key, std::string_view value, std::uint64_t line);
  // Loss values on lines that were not read in full (thinned): counted only.
  void count_unread(std::uint64_t finite, std::uint64_t nonfinite) {
    count_ += finite + nonfinite;
    finite_ += finite;
    nonfinite_ += nonfinite;
  }

  // A new training run started on LINE (its epoch counter went back to the start): the
  // trajectory is judged on this run's values; the counts keep the whole log's.
  void restart(std::uint64_t line);
  std::uint64_t restarts() const { return restarts_; }
  std::uint64_t run_start_line() const { return run_start_line_; }
  std::uint64_t run_count() const { return run_count_; }  // values since the last restart

  // Non-finite validation / evaluation losses (not part of the trajectory).
  std::uint64_t eval_nonfinite() const { return eval_nonfinite_; }
  std::uint64_t eval_nonfinite_line() const { return eval_nonfinite_line_; }
  const std::string& eval_key() const { return eval_key_; }

  std::uint64_t count() const { return count_; }
  std::uint64_t nonfinite() const { return nonfinite_; }
  bool last_nonfinite() const { return last_nonfinite_; }
  std::uint64_t nonfinite_streak_start() const { return streak_start_; }  // line
  std::uint64_t first_nonfinite_line() const { return first_nonfinite_line_; }
  const std::string& key() const { return key_; }
  // The series' first key named the training split ("train loss", "train_loss"): a bare
  // "loss" on an evaluation line is then that evaluation's, not this series'.
  bool named_train() const { return named_train_; }
  // Finite values only, oldest first (head then tail; the middle is not kept).
  std::vector<LossPoint> head() const { return head_; }
  std::vector<LossPoint> tail() const { return {tail_.begin(), tail_.end()}; }
  std::uint64_t finite_count() const { return finite_; }
  // Every value, finite or not, thinned to at most kOverview evenly spaced ones: the
  // run's picture for a report. STEP is told after the value (the line's step counter).
  static constexpr std::size_t kOverview = 240;
  // The newest value is always its last point, whatever the thinning kept.
  std::vector<CurvePoint> overview() const;
  void step_of_last(std::uint64_t line, std::uint64_t step);

  enum class Trend { none, too_few, down, flat, up };
  struct TrendInfo {
    Trend trend = Trend::none;
    // START and END are medians of the first and last WINDOW values, printed on lines
    // start_line..start_to and end_from..end_line; with a window of 1 they are the very
    // values printed on start_line and end_line.
    double start = 0, end = 0;
    std::uint64_t start_line = 0, end_line = 0;
    std::uint64_t start_to = 0, end_from = 0;
    std::size_t window = 1;
  };
  TrendInfo trend() const;

  // The last finite value, and how many lines in a row (the newest included) printed
  // exactly that value: a model that learns does not repeat its loss to every digit.
  std::optional<LossPoint> last() const;
  std::size_t exact_repeats() const { return repeats_; }
  // K when the last 8 values sit at ln K (0.6931 = ln 2, 2.3026 = ln 10): the loss of a
  // uniform guess over K classes; or the last 4, ten times closer, after a value that was
  // not there (the model moved, then collapsed to chance: per-epoch prints are few).
  std::optional<int> pinned_at_chance() const;
  std::size_t chance_run() const;  // how many of the last values pinned_at_chance() or hovering_at_chance() used
  // Noisier: a loss that never left the chance level of a few classes (ln 2 .. ln 10,
  // far enough apart to tell): twelve values or more, the median of the first eight
  // within 2 % of ln K, of the last eight within 1 %, and each of the last eight within 3 %.
  std::optional<int> hovering_at_chance() const;
  // The lowest and highest of the last N values.
  std::pair<double, double> recent_range(std::size_t n) const;
  // The loss fell to a low and then rose, steadily, to clearly above it by the end: the
  // medians of 5 values at the low and at the end, where, and how many values rose.
  struct LateRise {
    double low = 0, end = 0;
    std::uint64_t low_line = 0, end_line = 0;
    std::size_t after = 0, rising = 0;  // values after the low, and how many of those rose
  };
  std::optional<LateRise> late_rise() const;
  // A spike the loss never came back from: after its low it jumped (smoothed) to 1.3x or
  // more and its newest values all stayed 12% or more above the low.
  struct Unrecovered {
    double low = 0, peak = 0, end = 0;
    std::uint64_t low_line = 0, peak_line = 0, end_line = 0;
  };
  std::optional<Unrecovered> spike_unrecovered() const;
  // The first one to three values sit far below all that follows: the run started at a
  // learned level (a resumed checkpoint) and jumped to five times it or more, where it
  // stayed (twenty values or more, none under three times it). A fresh run's first loss
  // is its highest; this is a run that broke at its start.
  struct LevelJump {
    double before = 0, after = 0;  // the highest of the first values; the median after them
    std::uint64_t before_line = 0, jump_line = 0, end_line = 0;
    std::size_t after_n = 0;
  };
  std::optional<LevelJump> jumped_at_start() const;
  // The loss reads exactly 0 from some line on, three values or more, straight after a
  // real loss (0.01 or more): not a model that converged, but a loop that drops its
  // non-finite losses from the logged average (Hugging Face Trainer's default
  // logging_nan_inf_filter logs a window of only NaN steps as 0.0).
  struct Zeroed {
    std::uint64_t from_line = 0;
    double before = 0;       // the value printed before the zeros
    std::uint64_t before_line = 0;
    std::size_t count = 0;   // zeros in a row, the newest included
  };
  std::optional<Zeroed> zeroed() const;

 private:
  std::string key_;
  bool named_train_ = false;
  std::vector<LossPoint> head_;
  std::deque<LossPoint> tail_;
  std::uint64_t count_ = 0, finite_ = 0, nonfinite_ = 0;
  bool last_nonfinite_ = false;
  std::uint64_t streak_start_ = 0, first_nonfinite_line_ = 0;
  std::size_t repeats_ = 0;
  LossPoint before_zero_;             // the value before the newest run of exact zeros
  std::uint64_t zero_from_ = 0;       // the line where that run began (0 = the newest value is not 0)
  void sample(std::uint64_t line, double value);
  std::vector<CurvePoint> overview_;
  std::uint64_t stride_ = 1, seen_ = 0;  // every stride_-th value is sampled
  CurvePoint newest_, newest_finite_;
  std::uint64_t restarts_ = 0, run_start_line_ = 0, run_count_ = 0;
  std::uint64_t eval_nonfinite_ = 0, eval_nonfinite_line_ = 0;
  std::string eval_key_;
};

// Significant digits of V as printed (5.7257 -> 5, 0.83 -> 2): repeats of a coarse
// print prove little.
int printed_digits(double v);

}  // namespace gpualert::classify::detail
