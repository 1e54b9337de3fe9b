#pragma once
// A run that finished without a fault, as the done-but-bad checks read it: the progress
// and loss readings they share, and the one way to state a verdict (decide).
//
// To add a check: write `bool check_NAME(FinishedRun& r)` in its own file here (return
// true after r.decide(...) when it is the verdict, false to let the next check look),
// declare it below and put it in the list in done_but_bad.cpp where its precedence
// belongs. It needs nothing else from the decision stage.
#include <cstdint>
#include <string>

#include "../decision_state.hpp"

namespace gpualert::classify::detail {

struct FinishedRun {
  FinishedRun(Decision& d, Facts& facts);

  Decision& d;
  Facts& facts;
  const ProgressTracker& progress;
  const LossTracker& loss;
  LossTracker::TrendInfo trend;
  bool has_trend = false;  // enough loss values for a trend
  std::uint64_t steps = 0;  // optimizer steps done (counted, else planned, else loss values)
  // No exit status and no end-of-run line: only a loss that clearly went wrong is a
  // verdict (few or slow steps may just be where a pasted log stops).
  bool loss_only = false;
  double data_frac = 0;  // the share of the step spent waiting for data (0 when not printed)
  // The run was stopped from outside (cancelled, interrupted) and is judged for what came before.
  bool stopped = false;
  // The share of the announced plan done (steps, else epochs); negative when none was announced.
  double done_fraction = -1;

  // The verdict: CLS at confidence CONF, FIRST_IMPLICATION (if any) ahead of the class's own.
  bool decide(const char* cls, double conf, const std::string& first_implication = "");
};

bool check_resume_from_scratch(FinishedRun& r);
bool check_undertrained(FinishedRun& r);
bool check_undertrained_unmoved(FinishedRun& r);  // a few hundred steps, the loss still at its start
bool check_divergence(FinishedRun& r);          // rising, exploded, frozen, pinned at chance, no gradient
bool check_divergence_plateau(FinishedRun& r);  // never moved from its start (weaker)
bool check_divergence_before_stop(FinishedRun& r);  // rising, exploded or unrecovered before a cancel
bool check_accuracy_at_chance(FinishedRun& r);  // accuracy pinned at 1/K: the model predicts one class
bool check_return_never_moved(FinishedRun& r);  // an RL return that printed one value throughout
bool check_underutilized_any_stretch(FinishedRun& r);  // data wait >= 70 %: visible in any part of a log
bool check_underutilized(FinishedRun& r);
bool check_underutilized_rhythm(FinishedRun& r);  // one slow step in every few: the loader's workers run dry
bool check_loader_oversubscribed(FinishedRun& r);  // more loader workers than CPUs, said by PyTorch (pasted logs)
bool check_throughput_bound(FinishedRun& r);
bool check_straggler(FinishedRun& r);
bool check_thermal_throttle(FinishedRun& r);
bool check_healthy_slow(FinishedRun& r);
// Throttling reported without slower steps: a secondary finding only.
void note_harmless_throttle(FinishedRun& r);

}  // namespace gpualert::classify::detail
