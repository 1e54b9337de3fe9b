#pragma once
// Training-progress parsing beyond the loss: step / total steps, step time, data
// wait, grad norm, learning rate, per-rank timings, timestamps, and markers
// (checkpoint save / load, resume requested, explicit fresh start, throttle
// notices, throughput settings). Bounded memory whatever the log size.
//
// Formats understood (each a family, not one program's wording): Hugging Face
// Trainer dict lines and its "***** Running training *****" banner, PyTorch
// Lightning progress bars and "Restoring states from the checkpoint", Megatron-LM
// "iteration N/ M | ... | lm loss: ... | grad norm: ...", DeepSpeed "steps: N loss:
// ... iter time (s):", Keras "Epoch 3/10" + "b/B [...] - 3ms/step - loss:", timm
// "Train: E [ b/B ] Loss: Time: Data:", tqdm bars, and generic "step N loss X".
// Metrics tables (a header naming the columns, rows of numbers) are read by
// table_reader.hpp, which hands their counters to table_counters().
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accuracy_tracker.hpp"
#include "return_tracker.hpp"
#include "step_rhythm.hpp"

namespace gpualert::classify::detail {

struct Marker {
  std::uint64_t line = 0;  // 0 = not seen
  std::string text;
  explicit operator bool() const { return line != 0; }
};

// A bounded series: the first and last kKeep values.
class Series {
 public:
  static constexpr std::size_t kKeep = 48;
  void add(std::uint64_t line, double v);
  std::uint64_t count() const { return n_; }
  std::vector<double> values() const;
  double max() const { return max_; }
  double min() const { return min_; }
  double sum() const { return sum_; }
  // Every kept value above the one before: an elapsed-time clock ("time: 11110s"), not
  // a per-step time.
  bool only_rises() const;
  // Median of the first / last K kept values.
  double early(std::size_t k = 8) const;
  double late(std::size_t k = 8) const;
  std::uint64_t first_line() const { return head_.empty() ? 0 : head_.front().first; }
  std::uint64_t last_line() const { return tail_.empty() ? (head_.empty() ? 0 : head_.back().first) : tail_.back().first; }

 private:
  std::vector<std::pair<std::uint64_t, double>> head_;
  std::deque<std::pair<std::uint64_t, double>> tail_;
  std::uint64_t n_ = 0;
  double max_ = 0, min_ = 0, sum_ = 0;
};

struct RankTiming {
  double step_sum = 0, compute_sum = 0, wait_sum = 0;
  std::uint64_t step_n = 0, compute_n = 0, wait_n = 0;
  std::uint64_t line = 0;  // a line of this rank, for citation
  std::string text;
};

// What the fast matcher looks for on behalf of the tracker: a line with none of these
// teaches it nothing. STEP lines may be progress, STAMP lines carry a date and time;
// the others name a marker (MARKER), a checkpoint save (SAVE), a throttle record
// (THROTTLE) or a non-finite value (NONFINITE), whose first occurrences are always read.
enum class CueKind : unsigned char { step, stamp, marker, save, throttle, nonfinite };
struct CuePattern {
  const char* expr;  // RE2 syntax: the tracker's own pattern, or a looser one that is cheaper to find
  CueKind kind;
};
const std::vector<CuePattern>& progress_cues();

class ProgressTracker {
 public:
  // One line (or one carriage-return segment of it). PREFIX is a launcher's rank
  // label ("[rank1]:"), BODY the rest. HAS_LOSS: the loss rule matched here.
  void feed(std::string_view body, std::string_view prefix, std::uint64_t line, bool has_loss);
  // Lines that were not read in full (thinned out of a long, steady middle) but that
  // count: progress lines, checkpoint saves, throttle records (estimates).
  void count_unread(std::uint64_t steps, std::uint64_t saves, std::uint64_t throttles);
  // The counters of a metrics table's row (table_reader.hpp), ROW its text: told before
  // the row is fed, so that a progress bar on it counts within the right epoch.
  void table_counters(std::optional<std::int64_t> epoch, std::uint64_t epoch_total, std::optional<std::uint64_t> step,
                      std::uint64_t step_total, std::string_view row, std::uint64_t line);

  // Steps.
  bool have_step = false;
  std::uint64_t max_step = 0, first_step = 0, total_steps = 0;
  std::uint64_t max_epoch = 0, total_epochs = 0;  // from "Epoch N/M" counters only
  Marker last_epoch;                               // the line with the highest such epoch
  std::int64_t counted_epoch_low = -1;             // the lowest such epoch: 1 means counted from 1
  // The announced epochs all done by "Epoch N/M" counters: "Epoch 3/3", or "Epoch 2/3" when the
  // count may start at 0 (it was not seen to start at 1).
  bool counted_epochs_done() const {
    return total_epochs >= 2 && last_epoch && max_epoch + (counted_epoch_low == 1 ? 0 : 1) >= total_epochs;
  }
  Marker last_counted_step;                        // the line of the highest "step N/M"
  // The steps were computed from Hugging Face's closing metrics (train_runtime x
  // train_steps_per_second), not printed: their line does not show the number.
  bool steps_from_closing_metrics = false;
  // Epoch counters without a total ("Epoch 4"), and the total a setting announced.
  std::uint64_t announced_epochs = 0;
  std::int64_t bare_epoch_first = -1, bare_epoch_high = -1;
  Marker bare_epoch_last;
  // The announced epochs all done by the bare counters (first seen 0: counted from 0).
  bool bare_epochs_done() const {
    return announced_epochs && bare_epoch_last &&
           static_cast<std::uint64_t>(bare_epoch_high + (bare_epoch_first == 0 ? 1 : 0)) >= announced_epochs;
  }
  // Steps taken by the highest counter seen: "step 0/45" ... "step 44/45" counts from 0.
  std::uint64_t steps_taken() const { return have_step && first_step == 0 ? max_step + 1 : max_step; }
  // The training's progress bar (not a loading or evaluation bar): its newest record,
  // and whether that record is the bar's full count ("28/28"), and its steps' rhythm.
  Marker bar_end;
  bool bar_end_full = false;
  StepRhythm rhythm;
  // The line where the epoch counter went back to its start after reaching 3 or more:
  // another training run began in the same log (0 = none).
  std::uint64_t restarted_at = 0;
  std::uint64_t progress_lines = 0;  // lines with a loss value or a step counter
  std::uint64_t last_progress_line = 0;
  // The time per step: from the progress bar that timed the most steps when the log has
  // bars of several lengths (an evaluation bar of 170 inside a training bar of 573
  // times another loop), else from the step times the lines print.
  const Series& step_time() const;
  Series data_time, grad_norm, lr;
  // Gradient norms printed as nan/inf (the series keeps finite values only): how many
  // records had one, and how many of the newest in a row, from which line.
  std::uint64_t grad_records = 0, grad_nonfinite_streak = 0, grad_nonfinite_from = 0;
  Marker last_lr;  // the line of the newest learning rate
  // The learning rate decayed to its schedule's end: falling over its last three values
  // to under 2% of its highest, and less than one more of its last decrements above zero
  // (a linear, cosine or polynomial decay to zero, not a step or exponential decay).
  bool lr_schedule_ended() const;
  AccuracyTracker accuracy;
  ReturnTracker returns;  // a reinforcement-learning run's mean episode return
  std::map<std::string, RankTiming> ranks;  // bounded to kMaxRanks

  // Markers.
  std::uint64_t ckpt_saves = 0;
  // The resume request is a switch ("resume=1", a bare "--resume"), not a checkpoint named.
  bool resume_is_switch = false;
  Marker first_save, load, resume_request, fresh_start, launch_blocking, net_socket, net_ib, loader_warning,
      throttle_active, banner;
  Marker early_stop_setting;  // a setting that turns early stopping on ("patience=5")
  // Epochs the program said it skipped ("already passed"), and the newest such line.
  std::uint64_t epochs_skipped = 0;
  Marker epoch_skipped;
  std::uint64_t throttle_active_n = 0;

  // Timestamps printed in the log (seconds since the epoch, UTC as printed).
  std::int64_t last_ts = 0, last_progress_ts = 0, first_ts = 0;
  std::uint64_t last_ts_line = 0;
  // The last stamp on a line of the job's own (not the scheduler's "CANCELLED AT").
  std::int64_t last_output_ts = 0;
  std::uint64_t last_output_ts_line = 0;
  // A lower bound of the time of the last progress line: its own stamp, else the
  // first stamp printed after it (0 = unknown).
  std::int64_t progress_bound_ts() const { return last_progress_ts ? last_progress_ts : ts_after_progress_; }
  // The same bound for the first progress line: with the last one, the job's own pace.
  std::int64_t first_progress_bound_ts = 0;

  static constexpr std::size_t kMaxRanks = 1024;

 private:
  void steps(std::string_view s, std::uint64_t line, bool& is_progress);
  void timings(std::string_view s, std::string_view rank, std::uint64_t line);
  void markers(std::string_view s, std::uint64_t line);
  void note_step(std::uint64_t step, std::uint64_t total);
  bool note_epoch(std::int64_t e, std::uint64_t total, bool has_total, std::string_view s, std::uint64_t line);
  std::int64_t ts_after_progress_ = 0;
  bool first_bound_pending_ = false;
  bool side_bar_ = false;     // this line is a loading / evaluation / nested progress bar
  std::uint64_t bar_total_on_line_ = 0;  // the total of this line's training bar (0 = none)
  // Step times keyed by the length of the bar that printed them (0 = printed by a line,
  // not a bar); at most kBarLengths lengths.
  static constexpr std::size_t kBarLengths = 8;
  std::map<std::uint64_t, Series> step_times_;
  bool throttle_csv_ = false;  // an nvidia-smi CSV header with throttle/event reasons was seen
  std::uint64_t epoch_index_ = 0;  // distinct "Epoch N" headers seen
  std::optional<std::uint64_t> step_on_line_;  // the "step N" of the line being read
  std::int64_t epoch_no_ = -1;
  std::int64_t epoch_high_ = -1;  // the highest epoch number since the last restart
};

}  // namespace gpualert::classify::detail
