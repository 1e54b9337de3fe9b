// The done-but-bad checks in order of precedence: the first that finds its class is
// the verdict. Correctness before throughput; the throughput checks need the run's
// real end (an exit status of 0), or at least a log that shows the run to its end: a
// pasted stretch's timings say nothing of the whole run.
#include "finished_run.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "../analyzers.hpp"

namespace gpualert::classify::detail {
namespace {

enum class Needs {
  anything,     // any stretch of output
  completed,    // exit 0, or a pasted log whose program says it finished
  unknown_end,  // only when the run's real end is not known
  real_end,     // exit 0
  whole_run,    // exit 0, or a pasted log that shows the run to its end (its timings cover the run)
};

struct Check {
  bool (*run)(FinishedRun&);
  Needs needs;
};

const Check kChecks[] = {
    {check_resume_from_scratch, Needs::completed},
    {check_undertrained, Needs::completed},
    {check_return_never_moved, Needs::anything},
    {check_divergence, Needs::anything},
    {check_accuracy_at_chance, Needs::anything},
    {check_undertrained_unmoved, Needs::completed},
    {check_underutilized_any_stretch, Needs::unknown_end},
    {check_underutilized_rhythm, Needs::anything},
    {check_loader_oversubscribed, Needs::unknown_end},
    {check_throughput_bound, Needs::real_end},
    {check_straggler, Needs::real_end},
    {check_thermal_throttle, Needs::real_end},
    {check_underutilized, Needs::whole_run},
    {check_divergence_plateau, Needs::real_end},
    {check_healthy_slow, Needs::whole_run},
};

}  // namespace

FinishedRun::FinishedRun(Decision& dec, Facts& f)
    : d(dec), facts(f), progress(dec.scan.progress), loss(dec.scan.loss), trend(dec.scan.loss.trend()) {
  has_trend = trend.trend != LossTracker::Trend::none && trend.trend != LossTracker::Trend::too_few;
  // A reinforcement-learning run: its loss terms (value, policy, entropy) rise and fall with
  // the data the policy collects; its return is the learning curve (return_never_moved.cpp).
  if (dec.scan.progress.returns.is_curve()) has_trend = false;
  steps = progress.have_step ? progress.max_step : (progress.total_steps ? progress.total_steps : loss.count());
  loss_only = !d.exit_status.zero && !d.completed_by_log;
  const ProgressTracker& P = progress;
  if (P.total_steps && P.have_step) done_fraction = static_cast<double>(P.max_step) / static_cast<double>(P.total_steps);
  else if (P.total_epochs) done_fraction = static_cast<double>(P.max_epoch) / static_cast<double>(P.total_epochs);
  else if (P.announced_epochs && P.bare_epoch_last)
    done_fraction = static_cast<double>(P.bare_epoch_high + (P.bare_epoch_first == 0 ? 1 : 0)) /
                    static_cast<double>(P.announced_epochs);
  const Series& step_time = P.step_time();
  if (P.data_time.count() >= 3 && step_time.count() >= 3) {
    const double per = static_cast<double>(step_time.count()) / static_cast<double>(P.data_time.count());
    const double pooled = P.data_time.sum() / std::max(step_time.sum(), 1e-12) * per;
    // Without a first step that is the slowest: that iteration's warm-up (workers spawning,
    // cuDNN autotuning) is mostly "data" and can outweigh a short log's other steps.
    const std::vector<double> st = step_time.values(), dt = P.data_time.values();
    const bool warm_up = st.front() >= step_time.max() && dt.front() <= st.front();
    data_frac = warm_up ? std::min(pooled, (P.data_time.sum() - dt.front()) /
                                               std::max(step_time.sum() - st.front(), 1e-12) * per)
                        : pooled;
  }
}

bool FinishedRun::decide(const char* cls, double conf, const std::string& first_implication) {
  d.set_class(cls);
  if (has_trend) d.v.shows.push_back(d.loss_summary());
  d.add_text(cls, facts);
  if (!first_implication.empty()) d.v.implies.insert(d.v.implies.begin(), first_implication);
  if (d.slurm == "COMPLETED") conf += 0.05;
  d.v.confidence = std::clamp(conf, 0.05, 0.95);
  const std::string c(cls);
  if (!d.st.events_collected && (c == "straggler" || c == "thermal_throttle" || c == "healthy_slow"))
    d.v.cannot_decide.push_back("No kernel log / GPU telemetry was given: node-side causes (throttling, Xid) are unconfirmed.");
  return true;
}

bool done_but_bad(Decision& d, Facts& facts) {
  FinishedRun r(d, facts);
  if (r.steps) facts.emplace_back("steps", std::to_string(r.steps));
  const bool real_end = !r.loss_only && !d.completed_by_log;
  for (const Check& c : kChecks) {
    const bool applies = c.needs == Needs::anything || (c.needs == Needs::completed && !r.loss_only) ||
                         (c.needs == Needs::unknown_end && !real_end) || (c.needs == Needs::real_end && real_end) ||
                         (c.needs == Needs::whole_run && (real_end || d.completed_by_log));
    if (applies && c.run(r)) return true;
  }
  if (real_end) note_harmless_throttle(r);
  return false;
}

// A run someone stopped is judged for what came before the stop: a loss that had gone
// wrong is why it was stopped, and the cause (the disposition never masks it).
bool diverged_before_stop(Decision& d, Facts& facts) {
  FinishedRun r(d, facts);
  return check_divergence_before_stop(r);
}

}  // namespace gpualert::classify::detail
