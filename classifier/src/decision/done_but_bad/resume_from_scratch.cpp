// A resume was asked for (a flag, or the scheduler's record of a requeued job), no
// checkpoint was loaded, and training visibly started over.
#include "finished_run.hpp"

#include <algorithm>

#include "../wording.hpp"

namespace gpualert::classify::detail {

bool check_resume_from_scratch(FinishedRun& r) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  const auto& tr = r.trend;
  if (!(P.resume_request || !d.st.resume_expected.empty()) || P.load) return false;
  const auto head = r.loss.head();
  const bool loss_restarted = r.has_trend && tr.trend == LossTracker::Trend::down && !head.empty() &&
                              head.front().value >= 2.0 * std::max(tr.end, 1e-12);
  const bool step_restarted = P.have_step && P.first_step <= std::max<std::uint64_t>(10, P.max_step / 50);
  if (!P.fresh_start && !loss_restarted) return false;
  // A switch alone ("resume=1": resume if there is something to resume) and the job's
  // own word that it found no checkpoint and starts from scratch: a first run that
  // looked, not a continuation that silently lost its progress. A checkpoint named
  // ("--load outputs") or the scheduler's record of a requeue still makes it one.
  if (P.fresh_start && P.resume_is_switch && d.st.resume_expected.empty()) return false;
  d.cite_marker(P.resume_request, "progress.resume_request", "a resume from a checkpoint was requested");
  if (!d.st.resume_expected.empty()) d.v.shows.push_back("the scheduler's record implies a continuation: " + d.st.resume_expected);
  if (P.fresh_start) d.cite_marker(P.fresh_start, "progress.fresh_start", "the job says it starts without a checkpoint");
  d.v.shows.push_back("no line says a checkpoint was loaded (no 'loading checkpoint' / 'Restoring states' / "
                      "'Continuing training from checkpoint' marker)");
  if (step_restarted) d.v.shows.push_back("the step counter starts at " + std::to_string(P.first_step));
  if (loss_restarted)
    d.v.shows.push_back("the first loss value (" + fmt(head.front().value) + ", line " + std::to_string(head.front().line) +
                        ") is a fresh model's: it then fell to about " + fmt(tr.end));
  const int witnesses = (P.fresh_start ? 1 : 0) + (loss_restarted ? 1 : 0) + (step_restarted ? 1 : 0) +
                        (P.resume_request && !d.st.resume_expected.empty() ? 1 : 0);
  return r.decide("resume_from_scratch", 0.45 + 0.12 * witnesses);
}

}  // namespace gpualert::classify::detail
