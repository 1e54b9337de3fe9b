#pragma once
// The live conditions, decided from what the watcher observes every few seconds: no
// output for too long while the command lives (stall), a loss that is no longer a
// number, a loss that rose steadily from its low (divergence), and a pace that cannot
// reach the printed total before the time limit. Each fires once, and again only after
// it stopped being true. Pure logic: the clock and the process are in the observation.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/classifier/live_scan.hpp"

namespace gpualert::live {

using Clock = std::chrono::system_clock;

struct Observation {
  Clock::time_point at;
  classify::LiveSnapshot snap;
  Clock::time_point last_output;  // when the output last grew (the run's start before any)
  std::string last_line;          // the last line printed (printable, cut)
  std::optional<double> cpu_s;    // CPU seconds of the command's processes so far
  bool alive = true;              // the command still runs
};

struct Limits {
  Clock::time_point started;
  std::chrono::milliseconds stall_after{30 * 60 * 1000};
  std::chrono::milliseconds time_limit{0};  // 0: none known
  // Whether the snapshot's line numbers are the log's (the Slurm watcher reads a sample).
  bool line_numbers = true;
  // A stall still true this long after its alert fires "stall_cancel" (0: never): the
  // caller then ends the run.
  std::chrono::milliseconds cancel_after_stall{0};
};

struct Alert {
  std::string condition;  // stall | nan | divergence | wont_finish
  std::string headline;   // "no output for 45 min"
  std::vector<std::string> facts;  // what is still true, one line each
  Clock::time_point true_since;    // when the condition became true (for the latency)
};

class Conditions {
 public:
  explicit Conditions(Limits l) : limits_(l) {}
  std::vector<Alert> observe(const Observation& o);
  const std::vector<Alert>& fired() const { return fired_; }

 private:
  bool edge(const std::string& condition, bool now_true);
  Limits limits_;
  std::vector<std::string> active_;  // conditions fired and still true
  std::vector<Alert> fired_;
  std::optional<double> cpu_prev_;
  Clock::time_point cpu_prev_at_{};
  double cpu_rate_ = -1;  // CPU seconds per second over the last interval (-1 unknown)
  // The pace: the first observation that had a step count.
  std::optional<std::pair<Clock::time_point, std::uint64_t>> pace_from_;
  std::uint64_t last_step_ = 0;       // the highest step seen, and when it was first seen
  Clock::time_point last_advance_{};
};

std::string human_minutes(std::chrono::milliseconds d);

}  // namespace gpualert::live
