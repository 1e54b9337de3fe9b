#include "step_rhythm.hpp"

#include <algorithm>
#include <map>

namespace gpualert::classify::detail {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

void StepRhythm::record(std::uint64_t n, std::uint64_t elapsed, std::uint64_t line) {
  // A bar redrawn without moving, or a new bar: only one-step moves measure a step.
  clock_ = true;
  if (have_last_ && n == last_n_ + 1 && elapsed >= last_elapsed_ && steps_.size() < kKeep)
    steps_.push_back(Step{n, static_cast<double>(elapsed - last_elapsed_), line});
  if (!have_last_ || n != last_n_) {
    last_n_ = n;
    last_elapsed_ = elapsed;
  }
  have_last_ = true;
}

void StepRhythm::record_duration(std::uint64_t n, double seconds, std::uint64_t line) {
  if (have_printed_ && n == last_printed_n_ + 1 && seconds >= 0 && steps_.size() < kKeep)
    steps_.push_back(Step{n, seconds, line});
  last_printed_n_ = n;
  have_printed_ = true;
}

StepRhythm::Stall StepRhythm::periodic_stall() const {
  Stall s;
  if (steps_.size() < 12) return s;
  std::vector<double> all;
  double total = 0;
  for (const Step& st : steps_) {
    all.push_back(st.seconds);
    total += st.seconds;
  }
  const double typical = median_of(all);
  // Slow: far above the typical step, and (on a bar's one-second clock) long enough that
  // the clock's rounding cannot make it up.
  const double slow_at = clock_ ? std::max({4 * typical, typical + 2.0, 3.0}) : std::max(4 * typical, 0.05);
  std::vector<double> slow, fast;
  double slow_total = 0;
  std::map<std::uint64_t, unsigned> gaps;  // distance between successive slow steps of one bar
  unsigned ngaps = 0;
  const Step* prev_slow = nullptr;
  for (const Step& st : steps_) {
    if (st.seconds < slow_at) {
      fast.push_back(st.seconds);
      continue;
    }
    slow.push_back(st.seconds);
    slow_total += st.seconds;
    if (prev_slow && st.n > prev_slow->n) {
      ++gaps[st.n - prev_slow->n];
      ++ngaps;
    }
    prev_slow = &st;
  }
  if (slow.size() < 3 || ngaps < 2 || total <= 0) return s;
  const auto common = std::max_element(gaps.begin(), gaps.end(), [](auto& a, auto& b) { return a.second < b.second; });
  const std::uint64_t period = common->first;
  // A rhythm, not a few long steps: most gaps alike, one slow step per period and no more.
  if (period < 2 || period > 32 || common->second * 10 < ngaps * 7) return s;
  const double slow_fraction = static_cast<double>(slow.size()) / static_cast<double>(steps_.size());
  if (slow_fraction > 1.0 / static_cast<double>(period) + 0.1) return s;
  s.period = static_cast<unsigned>(period);
  s.slow_share = slow_total / total;
  s.slow_median = median_of(slow);
  s.fast_median = median_of(fast);
  s.steps = steps_.size();
  s.first_line = steps_.front().line;
  s.last_line = steps_.back().line;
  s.from_clock = clock_;
  return s;
}

}  // namespace gpualert::classify::detail
