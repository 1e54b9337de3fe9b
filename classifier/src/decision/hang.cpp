// Hang vs timeout: output that stopped long before the end of a run the scheduler (or
// someone) ended is a hang; the disposition becomes how it ended, not why.
#include "analyzers.hpp"

#include <algorithm>

#include "wording.hpp"

namespace gpualert::classify::detail {

void prefer_hang(Decision& d, std::optional<Cand>& primary, bool& disposition_primary, std::optional<Cand>& ended_by) {
  const ProgressTracker& P = d.scan.progress;
  std::optional<double> silent;
  std::string how;
  if (d.st.seconds_silent_before_end) {
    silent = *d.st.seconds_silent_before_end;
    how = "the capture timeline shows no output for the last " + fmt(*silent) + " s of the run";
  } else if (P.progress_bound_ts() && P.last_ts > P.progress_bound_ts() && P.last_ts_line > P.last_progress_line) {
    silent = static_cast<double>(P.last_ts - P.progress_bound_ts());
    how = "no progress was printed after line " + std::to_string(P.last_progress_line) + " for at least " + duration_text(*silent) +
          " before the last time stamp in the log (line " + std::to_string(P.last_ts_line) + ")";
  } else if (!P.progress_lines && P.last_output_ts && P.last_ts > P.last_output_ts && P.last_ts_line > P.last_output_ts_line) {
    // No training progress at all: the job's own last stamped line vs the scheduler's.
    silent = static_cast<double>(P.last_ts - P.last_output_ts);
    how = "the job never printed training progress, and its last time-stamped line (line " +
          std::to_string(P.last_output_ts_line) + ") came " + duration_text(*silent) + " before the scheduler's (line " +
          std::to_string(P.last_ts_line) + ")";
  }
  const double step = P.step_time().count() ? P.step_time().late() : 0;
  // A job that prints progress once an epoch (hours apart) is not hung after an hour of
  // quiet: the silence must also be long against the job's own pace of progress lines.
  const double pace = P.first_progress_bound_ts && P.progress_lines >= 3 && P.progress_bound_ts() > P.first_progress_bound_ts
                          ? static_cast<double>(P.progress_bound_ts() - P.first_progress_bound_ts) /
                                static_cast<double>(P.progress_lines - 1)
                          : 0.0;
  const double need = std::max({d.st.hang_after_s, 20.0 * step, 3.0 * pace});
  const int sig = d.exit_status.signal ? d.exit_status.signal : d.log_signal;
  const bool killed = (primary && primary->cls == "signal_kill" && (sig == 15 || sig == 9 || sig == 2)) ||
                      (primary && primary->suspected) ||
                      (primary && primary->cls == "unknown") || (d.exit_status.code && *d.exit_status.code == 124 && !primary);
  const bool ended = disposition_primary && primary &&
                     (primary->cls == "timeout" || primary->cls == "cancelled" || primary->cls == "preempted");
  // Nothing ended it, and the quiet ends on the program's own end-of-run line: it was
  // busy (a last evaluation, the final save) and finished, not hung.
  const Citation* fin = finish_marker_near_end(d);
  const bool quiet_ends_in_finish = fin && fin->line >= P.last_ts_line;
  // Nothing ended it, and the run had reached the length it announced before the quiet:
  // what came after (a test pass, the final save) was work after training, not a stall.
  const bool quiet_after_plan = announced_end_reached(d) != nullptr;
  if (silent && *silent >= need &&
      (ended || killed || (!primary && !d.exit_status.zero && !quiet_ends_in_finish && !quiet_after_plan))) {
    if (primary) ended_by = primary;
    Cand h{"hang", 60, P.last_progress_line, nullptr, how + ": the job stopped making progress long before it was ended",
           "log", {}, 1, 1, {}, false};
    primary = h;
    disposition_primary = false;
  }
}

}  // namespace gpualert::classify::detail
