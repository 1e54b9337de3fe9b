// Throttle notices (thermal / power) with steps that got slower; throttling without
// slower steps is only a secondary finding.
#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_thermal_throttle(FinishedRun& r) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  const Series& st = P.step_time();
  if (P.throttle_active_n == 0) return false;
  const bool timed = st.count() >= 6;
  const double slowdown = timed && st.early() > 0 ? st.late() / st.early() : 0;
  if (timed && slowdown < 1.2) return false;
  d.cite_marker(P.throttle_active, "progress.throttle", "a GPU clock throttle reason (thermal/power) is active");
  if (P.throttle_active_n > 1) d.v.shows.push_back(std::to_string(P.throttle_active_n) + " throttle-active records in all");
  if (timed)
    d.v.shows.push_back("the step time rose from about " + fmt(st.early()) + " s to about " + fmt(st.late()) +
                        " s (x" + fmt(slowdown) + ")");
  return r.decide("thermal_throttle", timed ? 0.75 : 0.5);
}

void note_harmless_throttle(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  if (P.throttle_active_n == 0) return;
  r.d.finding("thermal_throttle", "line " + std::to_string(P.throttle_active.line) + ": " + P.throttle_active.text +
                                      " (throttling was reported, but the step time did not suffer)",
              0.3, {});
}

}  // namespace gpualert::classify::detail
