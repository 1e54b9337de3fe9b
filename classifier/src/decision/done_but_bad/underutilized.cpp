// The input pipeline starves the GPU: waiting for data takes most of the step.
#include <algorithm>

#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {
namespace {

bool starved(FinishedRun& r, double conf) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  d.v.shows.push_back("waiting for data took about " + std::to_string(static_cast<int>(std::min(r.data_frac, 1.0) * 100)) +
                      "% of the step time over " + std::to_string(P.data_time.count()) + " steps (from line " +
                      std::to_string(P.data_time.first_line()) + ")");
  if (P.loader_warning) d.cite_marker(P.loader_warning, "progress.loader_warning", "the data loader warns about its workers");
  r.decide("underutilized", conf);
  if (r.loss_only)
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                             "No exit status was given: how the run ended is not known; this verdict rests on the "
                             "printed step and data-loading times alone.");
  return true;
}

}  // namespace

// One slow step in every few, the rest nearly free, read off the training bar's clock:
// the loader's workers each prepare one batch and are all used up by the time the next
// is needed. Visible in any stretch of the log, whatever the run's end.
bool check_underutilized_rhythm(FinishedRun& r) {
  const StepRhythm::Stall s = r.progress.rhythm.periodic_stall();
  if (!s.period || s.slow_share < 0.6) return false;
  Decision& d = r.d;
  d.v.shows.push_back("one step in every " + std::to_string(s.period) + " took about " + fmt(s.slow_median) +
                      " s while the others took about " + fmt(s.fast_median) + " s; the slow steps were " +
                      std::to_string(static_cast<int>(s.slow_share * 100)) + "% of the time of " + std::to_string(s.steps) +
                      (s.from_clock ? " steps timed by the progress bar" : " steps whose times were printed") + " (lines " +
                      std::to_string(s.first_line) + "-" +
                      std::to_string(s.last_line) + ")");
  if (r.progress.loader_warning)
    d.cite_marker(r.progress.loader_warning, "progress.loader_warning", "the data loader warns about its workers");
  r.decide("underutilized", s.slow_share >= 0.75 ? 0.6 : 0.5,
           "A rhythm of one slow step in every " + std::to_string(s.period) +
               " is the data loader's: with that many workers each preparing a batch, the GPU waits for the next "
               "batch to be loaded once they are all used up.");
  if (r.loss_only)
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                             std::string("No exit status was given: how the run ended is not known; this verdict rests on the ") +
                                 (s.from_clock ? "progress bar's clock alone." : "printed step times alone."));
  return true;
}

// A step that is mostly waiting for data is visible in any stretch of the log.
bool check_underutilized_any_stretch(FinishedRun& r) { return r.data_frac >= 0.7 && starved(r, 0.5); }

bool check_underutilized(FinishedRun& r) { return r.data_frac >= 0.5 && starved(r, r.data_frac >= 0.7 ? 0.7 : 0.5); }

}  // namespace gpualert::classify::detail
