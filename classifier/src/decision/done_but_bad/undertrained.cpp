// Undertrained: a run that ended normally after a negligible amount of training. Either
// a handful of counted steps (frameworks log the loss every N steps, so a few loss lines
// alone do not prove a few steps, unless their counter stops by step 50; a run planned to
// be that short, all done, is no better), or a small share of the length the run itself announced
// ("Epoch 2/100", step 30 of max_steps=10000) with no early stopping to explain it.
// Apart (after the divergence checks): a run that ended within a few hundred steps with
// its loss still where it began, so short a run had no time to learn.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "re2/re2.h"
#include "../analyzers.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {
namespace {

// Early stopping ends a run before its planned length on purpose: no shortfall.
bool stopped_early_on_purpose(const Decision& d) {
  // Early stopping was set up and the program said it finished: the short run is its doing.
  if (d.scan.progress.early_stop_setting && finish_marker_near_end(d)) return true;
  static const RE2 early(R"((?i)early[ _-]?stop|restoring model weights|stop(?:ping)? condition|patience)");
  for (const auto& t : d.scan.tail)
    if (RE2::PartialMatch(t.text, early)) return true;
  const int rule = d.rule_index("progress.run_end");
  if (rule >= 0)
    for (const Hit* h : d.scan.hits[static_cast<std::size_t>(rule)].all())
      if (RE2::PartialMatch(h->text, early)) return true;
  return false;
}

constexpr std::uint64_t kFewSteps = 50;

bool a_handful(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  const std::uint64_t steps = r.steps;
  // Or a handful of logged losses, each some steps apart, that reach no further than
  // step 50: a run that stopped a few log intervals in, planned so or not (a 50-step
  // "demo" of a LoRA trains as little as one cut short).
  const bool few_logged = P.have_step && steps <= kFewSteps && r.loss.count() >= 1 && r.loss.count() <= 5 &&
                          steps >= 5 * r.loss.count();
  const bool handful = steps <= 3 || few_logged || (P.total_steps && P.total_steps <= 10 && steps <= P.total_steps);
  if (steps < 1 || !handful || !(P.have_step || P.total_steps)) return false;
  // Several epochs done, or far more loss values than steps: the counter read is not the
  // training's ("Step 1" of a notebook's exercise list), and the run was no handful.
  if (P.max_epoch >= 2 || r.loss.count() > 3 * steps + 5) return false;
  r.d.v.shows.push_back("training stopped after " + std::to_string(steps) + " step(s)" +
                        (P.total_steps ? " (the run planned " + std::to_string(P.total_steps) + ")" : ""));
  if (r.loss.count()) r.d.v.shows.push_back(std::to_string(r.loss.count()) + " loss value(s) were printed");
  return r.decide("undertrained", P.have_step && P.total_steps ? 0.75 : 0.65);
}

constexpr double kNegligibleShare = 0.1;

bool far_short_of_plan(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  if (r.done_fraction < 0 || r.done_fraction >= kNegligibleShare || stopped_early_on_purpose(r.d)) return false;
  const int pct = static_cast<int>(r.done_fraction * 100 + 0.5);
  const std::string share = " (" + (pct ? std::to_string(pct) : std::string("under 1")) + "% of the plan)";
  if (P.total_steps && P.have_step)
    r.d.cite_marker(P.last_counted_step ? P.last_counted_step : P.bar_end, "progress.announced_end",
                    (P.steps_from_closing_metrics ? "the closing metrics (train_runtime x train_steps_per_second) imply " +
                                                        std::to_string(P.max_step) + " steps"
                                                  : "the run ended at step " + std::to_string(P.max_step)) +
                        " of the " + std::to_string(P.total_steps) + " announced" + share);
  else if (P.total_epochs)
    r.d.cite_marker(P.last_epoch, "progress.announced_end",
                    "the run ended at epoch " + std::to_string(P.max_epoch) + " of the " + std::to_string(P.total_epochs) +
                        " announced" + share);
  else
    r.d.cite_marker(P.bare_epoch_last, "progress.announced_end",
                    "the run ended at epoch " + std::to_string(P.bare_epoch_high) + " of the " +
                        std::to_string(P.announced_epochs) + " its settings announced" + share);
  return r.decide("undertrained", 0.45,
                  "The run ended normally, but after a small share of the training it announced: the model saw little "
                  "of what was planned (a max_steps or time budget that cut it short, a loop that exits early, a "
                  "data set far smaller than expected).");
}

// Every epoch passed over and no loss printed: a resumed run that found its work done (or a
// resume point past the end) and trained nothing.
bool every_epoch_skipped(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  // No loss, at least as many skips as the highest epoch counted, and no progress after
  // the last skip ("Skipping epoch 10/10" may itself read as a bar's count).
  if (P.epochs_skipped == 0 || r.loss.count() > 0 || P.epochs_skipped < P.max_epoch ||
      (P.bar_end && P.bar_end.line > P.epoch_skipped.line))
    return false;
  r.d.cite_marker(P.epoch_skipped, "progress.epoch_skipped",
                  "the program passed over " + std::to_string(P.epochs_skipped) +
                      " epoch(s) without training them, and printed no loss");
  return r.decide("undertrained", 0.55,
                  "The run ended normally without training: every epoch it reached was skipped (a resumed run whose "
                  "checkpoint says the work was done, or a start point beyond the planned end).");
}

}  // namespace

bool check_undertrained(FinishedRun& r) { return a_handful(r) || far_short_of_plan(r) || every_epoch_skipped(r); }

// A few hundred steps: long enough that a learning model's loss falls clearly (a tenth or
// more, even a fine-tune's), short enough that a flat loss means it stopped too soon; a long
// flat run is the plateau check's (divergence).
namespace {
constexpr std::uint64_t kShortRunSteps = 300;
constexpr double kClearDrop = 0.10;
}  // namespace

bool check_undertrained_unmoved(FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  const auto& tr = r.trend;
  if (!P.have_step || P.max_step > kShortRunSteps || P.max_epoch >= 2 || !r.has_trend) return false;
  // Within fifty steps a loss that rose a little is noise of a run too short to judge, not
  // a divergence.
  const bool very_short = P.max_step <= kFewSteps;
  if (r.loss.finite_count() < 5 || (tr.trend == LossTracker::Trend::up && !very_short) || stopped_early_on_purpose(r.d))
    return false;
  // A run that did the length it announced had its chance: a flat loss there is a model
  // that did not learn (the plateau check), not a run cut short.
  if (r.done_fraction >= 0.9 || announced_end_reached(r.d)) return false;
  // It fell, but by less than a tenth: a loss that rose, however little, is the divergence
  // checks' to judge (a very short run's, by less than a tenth, is not).
  const double rel = (tr.end - tr.start) / std::max(std::fabs(tr.start), 1e-9);
  if (rel <= -kClearDrop || rel > (very_short ? kClearDrop : 0)) return false;
  // Flat at the loss of a uniform guess over a few classes (ln 2 .. ln 10, far enough
  // apart to tell): a model that cannot learn (shuffled labels, a dead output), which
  // more steps would not fix.
  for (int k = 2; k <= 10; ++k)
    if (std::fabs(tr.end - std::log(k)) <= 0.02 * std::log(k)) return false;
  r.d.v.shows.push_back("training ended at step " + std::to_string(P.max_step) +
                        " with its loss still within a tenth of its first values");
  return r.decide("undertrained", 0.5,
                  "The run ended normally after only " + std::to_string(P.max_step) +
                      " steps, before its loss had come down: it stopped before the model learned (a step or epoch "
                      "setting, or a data set, far smaller than intended).");
}


}  // namespace gpualert::classify::detail
