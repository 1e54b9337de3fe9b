// The input pipeline starves the GPU: waiting for data takes most of the step.
#include <algorithm>

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

// A step that is mostly waiting for data is visible in any stretch of the log.
bool check_underutilized_any_stretch(FinishedRun& r) { return r.data_frac >= 0.7 && starved(r, 0.5); }

bool check_underutilized(FinishedRun& r) { return r.data_frac >= 0.5 && starved(r, r.data_frac >= 0.7 ? 0.7 : 0.5); }

}  // namespace gpualert::classify::detail
