// Correct, but the steps became much slower than the run's own early steps. Printed
// step times are often rounded (Keras "0ms/step"): a real difference is needed too.
#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_healthy_slow(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  const Series& st = P.step_time();
  // A "time" that rose at every print is the run's elapsed clock, not its step time.
  const bool timed = st.count() >= 6 && !st.only_rises();
  const double slowdown = timed && st.early() > 0 ? st.late() / st.early() : 0;
  if (!timed || slowdown < 2.0 || st.early() <= 0 || st.late() - st.early() < 0.005 ||
      r.trend.trend == LossTracker::Trend::up)
    return false;
  r.d.v.shows.push_back("the step time rose from about " + fmt(st.early()) + " s (early steps, from line " +
                        std::to_string(st.first_line()) + ") to about " + fmt(st.late()) +
                        " s (last steps, to line " + std::to_string(st.last_line()) + "): x" + fmt(slowdown));
  return r.decide("healthy_slow", r.trend.trend == LossTracker::Trend::down ? 0.7 : 0.55);
}

}  // namespace gpualert::classify::detail
