// A handful of steps. Only counted steps count: frameworks log the loss every N steps,
// so a few loss lines alone do not prove a few steps. A run planned to be that short
// (ten steps or fewer, all done) is no better.
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_undertrained(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  const std::uint64_t steps = r.steps;
  const bool handful = steps <= 3 || (P.total_steps && P.total_steps <= 10 && steps <= P.total_steps);
  if (steps < 1 || !handful || !(P.have_step || P.total_steps)) return false;
  // Several epochs done, or far more loss values than steps: the counter read is not the
  // training's ("Step 1" of a notebook's exercise list), and the run was no handful.
  if (P.max_epoch >= 2 || r.loss.count() > 3 * steps + 5) return false;
  r.d.v.shows.push_back("training stopped after " + std::to_string(steps) + " step(s)" +
                        (P.total_steps ? " (the run planned " + std::to_string(P.total_steps) + ")" : ""));
  if (r.loss.count()) r.d.v.shows.push_back(std::to_string(r.loss.count()) + " loss value(s) were printed");
  return r.decide("undertrained", P.have_step && P.total_steps ? 0.75 : 0.65);
}

}  // namespace gpualert::classify::detail
