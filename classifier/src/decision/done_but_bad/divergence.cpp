// The loss did not go down: it rose, exploded to an absurd finite value, froze at one
// value, sat at chance level (ln K), or got no gradient / learning rate; weaker, a
// plateau near its starting value.
#include <algorithm>
#include <cmath>
#include <optional>

#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {
namespace {

struct LossShape {
  bool flat_long = false, grad_zero = false, lr_zero = false, exploded = false, stuck = false, frozen = false;
  std::optional<int> chance_k;
  std::optional<LossTracker::LateRise> late_rise;
  std::optional<LossTracker::Unrecovered> unrecovered;
  std::optional<LossTracker::LevelJump> jumped;
  std::optional<LossPoint> last;
  std::size_t repeats = 0;
  bool clear() const {
    return flat_long || grad_zero || lr_zero || exploded || chance_k || frozen || late_rise || unrecovered || jumped;
  }
};

LossShape shape_of(const FinishedRun& r) {
  const ProgressTracker& P = r.progress;
  const LossTracker& L = r.loss;
  const auto& tr = r.trend;
  LossShape s;
  s.flat_long = tr.trend == LossTracker::Trend::flat && L.finite_count() >= 20 &&
                std::fabs(tr.end - tr.start) < 0.01 * std::max(std::fabs(tr.start), 1e-9);
  s.grad_zero = P.grad_norm.count() >= 3 && P.grad_norm.max() <= 1e-8;
  s.lr_zero = P.lr.count() >= 3 && std::fabs(P.lr.max()) <= 1e-12 && std::fabs(P.lr.min()) <= 1e-12;
  // Finite but absurd: no usual training loss ends above a million. A loss summed over
  // pixels or tokens can start there and fall steadily (a VAE's 1.8e6 -> 5.2e5): large,
  // but learning. So a falling loss counts as exploded only once it has been astronomical
  // (1e9 and up: 1e20 under a learning rate of 1e6, "falling" to 2e5).
  double loss_max = 0;
  for (const auto& x : L.head()) loss_max = std::max(loss_max, std::fabs(x.value));
  for (const auto& x : L.tail()) loss_max = std::max(loss_max, std::fabs(x.value));
  s.exploded = r.has_trend && (tr.trend != LossTracker::Trend::down || loss_max >= 1e9) &&
               (std::fabs(tr.end) >= 1e6 || (loss_max >= 1e6 && std::fabs(tr.end) >= 1e3));
  // Never really moved: ten or more values and less than an 8% drop end to end.
  const double rel = r.has_trend ? (tr.end - tr.start) / std::max(std::fabs(tr.start), 1e-9) : 0;
  s.stuck = r.has_trend && L.finite_count() >= 10 && rel > -0.08;
  // Pinned at chance (ln K), or frozen: the same value to every printed digit five times
  // running, or three times when printed with four or more digits (coarse prints such as
  // "0.83" repeat by chance). A progress bar redraws one step's value on every refresh,
  // so it needs the stricter count; near-zero losses of a converged model are excluded.
  s.chance_k = L.pinned_at_chance();
  if (!s.chance_k && s.stuck) s.chance_k = L.hovering_at_chance();
  s.last = L.last();
  bool progress_bar = false;
  for (const auto& t : r.d.scan.tail)
    if (s.last && t.line == s.last->line)
      progress_bar = t.text.find("it/s") != std::string::npos || t.text.find("s/it") != std::string::npos;
  s.repeats = L.exact_repeats();
  // A loss printed to two digits ("4.2") repeats while it converges: that needs a loss
  // that did not come down first.
  const int digits = s.last && s.last->value > 0.01 ? printed_digits(s.last->value) : 0;
  s.frozen = s.last && s.last->value > 0.01 &&
             ((s.repeats >= 5 && (digits >= 3 || tr.trend != LossTracker::Trend::down)) ||
              (s.repeats >= 3 && !progress_bar && digits >= 4));
  s.late_rise = L.late_rise();
  if (!s.late_rise) s.unrecovered = L.spike_unrecovered();
  if (!s.late_rise && !s.unrecovered) s.jumped = L.jumped_at_start();
  return s;
}

bool diverged(FinishedRun& r, const LossShape& s) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  const auto& tr = r.trend;
  d.cite_loss_ends();
  std::string why = tr.trend == LossTracker::Trend::up ? "The run completed, but the loss rose instead of falling."
                                                       : "The run completed, but the loss never moved.";
  if (s.grad_zero) {
    d.v.shows.push_back("the gradient norm was 0 in all " + std::to_string(P.grad_norm.count()) + " values printed (from line " +
                        std::to_string(P.grad_norm.first_line()) + ")");
    why = "The run completed, but no gradient reached the weights (grad norm 0): frozen parameters or a detached loss.";
  }
  if (s.lr_zero) {
    d.v.shows.push_back("the learning rate was 0 in all " + std::to_string(P.lr.count()) + " values printed");
    why = "The run completed, but the learning rate was 0: the weights never changed.";
  }
  if (s.chance_k) {
    const std::size_t n = r.loss.chance_run();
    const auto [lo, hi] = r.loss.recent_range(n);
    const std::string values = fmt(lo) == fmt(hi) ? "are all " + fmt(lo) : "lie within " + fmt(lo) + " to " + fmt(hi);
    d.v.shows.push_back("the last " + std::to_string(n) + " loss values " + values + " (to line " +
                        std::to_string(s.last->line) + "), at ln " + std::to_string(*s.chance_k) + " = " +
                        fmt(std::log(*s.chance_k)) + ": the loss of a uniform guess over " +
                        std::to_string(*s.chance_k) + " classes");
    why = "The run completed, but the loss is pinned at chance level (ln " + std::to_string(*s.chance_k) +
          "): the model outputs the same uniform prediction and learns nothing (dead activations, a too-high learning "
          "rate that saturated the output, or labels that do not match the output layer).";
  }
  if (s.frozen && !s.chance_k) {
    d.v.shows.push_back("the last " + std::to_string(s.repeats) + " loss values are all exactly " + fmt(s.last->value) +
                        " (to line " + std::to_string(s.last->line) + "): the loss is frozen");
    why = "The run completed, but its loss is frozen at one value: the weights stopped changing (dead activations, "
          "a saturated output, a learning rate or optimizer that no longer updates them).";
  }
  if (s.late_rise && !s.exploded && !s.frozen && !s.chance_k) {
    const auto& lr = *s.late_rise;
    d.v.shows.push_back("the " + r.loss.key() + " fell to a median of " + fmt(lr.low) + " (the 5 values around line " +
                        std::to_string(lr.low_line) + "), then rose in " + std::to_string(lr.rising) + " of the next " +
                        std::to_string(lr.after) + " values to a median of " + fmt(lr.end) + " (the last 5, to line " +
                        std::to_string(lr.end_line) + ")");
    why = "The run completed, but after reaching its low the loss rose steadily to the end: it is diverging (a learning "
          "rate too high for this stage, a bad stretch of data, or numerical instability).";
  }
  if (s.unrecovered && !s.exploded && !s.frozen && !s.chance_k) {
    const auto& u = *s.unrecovered;
    d.v.shows.push_back("the " + r.loss.key() + " fell to a median of " + fmt(u.low) + " (the 5 values around line " +
                        std::to_string(u.low_line) + "), jumped to a median of " + fmt(u.peak) + " (around line " +
                        std::to_string(u.peak_line) + ") and never came back: a median of " + fmt(u.end) +
                        " at the end (the last 5, to line " + std::to_string(u.end_line) + ")");
    why = "The run completed, but the loss spiked and never recovered, undoing part of the training: the run diverged "
          "(a learning rate too high for this stage, a bad batch, or numerical instability).";
  }
  if (s.jumped && !s.exploded && !s.frozen && !s.chance_k) {
    const auto& j = *s.jumped;
    d.v.shows.push_back("the " + r.loss.key() + " was " + fmt(j.before) + " at first (to line " + std::to_string(j.before_line) +
                        "), then jumped (line " + std::to_string(j.jump_line) + ") to a median of " + fmt(j.after) + " over the " +
                        std::to_string(j.after_n) + " values after it, never back under three times its first level (to line " +
                        std::to_string(j.end_line) + ")");
    why = "The run completed, but right after its start (a resumed checkpoint's level) the loss jumped several-fold and "
          "stayed there: the run broke (optimizer or scheduler state that does not match the weights, a changed data "
          "set or tokenizer, or a learning rate far too high).";
  }
  if (s.exploded) why = "The run completed, but the loss exploded to an absurd (finite) value.";
  else if (s.stuck && tr.trend != LossTracker::Trend::up && !s.late_rise && !s.unrecovered)
    why = "The run completed, but the loss stayed on a plateau near its starting value: the model did not learn.";
  double conf = tr.trend == LossTracker::Trend::up || s.exploded || s.late_rise ? 0.7 : s.unrecovered || s.jumped ? 0.6 : 0.55;
  if (s.grad_zero || s.lr_zero) conf += 0.15;
  if (r.loss_only) {
    const std::string lead = "The run completed, but t";
    if (why.rfind(lead, 0) == 0) why = "T" + why.substr(lead.size());
    conf -= 0.15;
  }
  r.decide("divergence", conf, why);
  if (r.stopped)
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                             "Whether the run would have recovered: it was stopped (by hand or by the scheduler) after the "
                             "loss had gone wrong.");
  else if (r.loss_only)
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                             "No exit status was given: whether the run ended normally or was cut short is not known; "
                             "this verdict rests on the loss values alone.");
  else
    d.finding("healthy", "the process exited 0 with no error in the log", 0.3, {});
  return true;
}

}  // namespace

// Steps by which any learning model's loss has left its starting level, whatever its plan.
constexpr std::uint64_t kStepsToLeaveTheStart = 5000;

bool check_divergence(FinishedRun& r) {
  LossShape s = shape_of(r);
  // No gradient at every print says it alone, however few losses came with it.
  if (!r.has_trend && !s.grad_zero) return false;
  if (r.loss_only && r.done_fraction >= 0 && r.done_fraction < 0.1 && r.progress.max_step < kStepsToLeaveTheStart) {
    // A pasted log from the first tenth of its plan: a loss still at its starting level
    // (chance, flat) is where every run begins, not a verdict; a value frozen to every digit still is.
    // Thousands of steps in, a loss that has not moved is no longer a start.
    s.flat_long = s.stuck = false;
    s.chance_k.reset();
  }
  if (r.trend.trend != LossTracker::Trend::up && !s.clear()) return false;
  return diverged(r, s);
}

bool check_divergence_before_stop(FinishedRun& r) {
  if (!r.has_trend) return false;
  const LossShape s = shape_of(r);
  // Only a loss that went wrong: a plateau or a flat loss is no reason the run was stopped.
  if (r.trend.trend != LossTracker::Trend::up && !s.exploded && !s.late_rise && !s.unrecovered && !s.jumped) return false;
  r.stopped = true;
  return diverged(r, s);
}

bool check_divergence_plateau(FinishedRun& r) {
  const LossShape s = shape_of(r);
  if (!s.stuck) return false;
  return diverged(r, s);
}

}  // namespace gpualert::classify::detail
