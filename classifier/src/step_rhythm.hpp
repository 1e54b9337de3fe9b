#pragma once
// Per-step durations read from a progress bar's elapsed clock ("12/28 [02:08<01:30, ...]")
// or printed per step ("Step: 7/951, ..., Time/step: 43.9"),
// and the one pattern they reveal that no printed rate does: a data loader whose
// workers cannot keep up. Each of W workers prepares one batch; when all W are used
// up, the next step waits for a whole batch to be loaded, so one step in every W takes
// almost all the time while the W-1 after it are nearly free. Bounded memory.
#include <cstdint>
#include <vector>

namespace gpualert::classify::detail {

class StepRhythm {
 public:
  // Record N of a bar at ELAPSED seconds since the bar began, on LINE. A record whose
  // count did not move on by exactly one starts a new stretch.
  void record(std::uint64_t n, std::uint64_t elapsed, std::uint64_t line);
  // Step N took SECONDS, as the line printed it ("Step: 7/951, ..., Time/step: 43.9"): only
  // steps printed one after another measure the rhythm.
  void record_duration(std::uint64_t n, double seconds, std::uint64_t line);

  struct Stall {
    unsigned period = 0;          // one slow step in every PERIOD (0 = no such rhythm)
    double slow_share = 0;        // the slow steps' share of the time measured
    double slow_median = 0;       // seconds
    double fast_median = 0;       // seconds
    std::uint64_t steps = 0;      // steps measured
    std::uint64_t first_line = 0, last_line = 0;
    bool from_clock = false;      // read off a progress bar's clock, not printed per step
  };
  // The periodic stall, if the measured steps show one.
  Stall periodic_stall() const;

  static constexpr std::size_t kKeep = 512;

 private:
  struct Step {
    std::uint64_t n;  // the bar's count after this step
    double seconds;
    std::uint64_t line;
  };
  std::vector<Step> steps_;  // the first kKeep single-step durations
  std::uint64_t last_n_ = 0, last_elapsed_ = 0;
  bool have_last_ = false;
  std::uint64_t last_printed_n_ = 0;
  bool have_printed_ = false;
  bool clock_ = false;  // durations read off a one-second bar clock (coarse)
};

}  // namespace gpualert::classify::detail
