// Exit 0 and no fault: did the run do what a training run should? Returns true when
// a "done but bad" class (correctness or throughput) is the verdict.
#include "../analyzers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "../wording.hpp"

namespace gpualert::classify::detail {

bool done_but_bad(Decision& d, Facts& facts) {
  const ProgressTracker& P = d.scan.progress;
  const LossTracker& L = d.scan.loss;
  const auto tr = L.trend();
  const bool has_trend = tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few;
  const auto decide = [&](const char* cls, double conf, const std::string& first_implication) {
    d.set_class(cls);
    if (has_trend) d.v.shows.push_back(d.loss_summary());
    d.add_text(cls, facts);
    if (!first_implication.empty()) d.v.implies.insert(d.v.implies.begin(), first_implication);
    if (d.slurm == "COMPLETED") conf += 0.05;
    d.v.confidence = std::clamp(conf, 0.05, 0.95);
    if (!d.st.events_collected && (std::string(cls) == "straggler" || std::string(cls) == "thermal_throttle" ||
                                  std::string(cls) == "healthy_slow"))
      d.v.cannot_decide.push_back("No kernel log / GPU telemetry was given: node-side causes (throttling, Xid) are unconfirmed.");
    return true;
  };
  // How many optimizer steps were done.
  std::uint64_t steps = P.have_step ? P.max_step : 0;
  if (!P.have_step) steps = P.total_steps ? P.total_steps : L.count();
  if (steps) facts.emplace_back("steps", std::to_string(steps));

  // Without an exit status (a pasted log, a fragment) only a loss that clearly went
  // wrong is a verdict: few steps or slow steps may just be where the paste ends.
  const bool loss_only = !d.exit_status.zero && !d.completed_by_log;
  // 1. Resume requested, nothing loaded, and training visibly started over.
  if (!loss_only && (P.resume_request || !d.st.resume_expected.empty()) && !P.load) {
    const auto head = L.head();
    const bool loss_restarted = has_trend && tr.trend == LossTracker::Trend::down && !head.empty() &&
                                head.front().value >= 2.0 * std::max(tr.end, 1e-12);
    const bool step_restarted = P.have_step && P.first_step <= std::max<std::uint64_t>(10, P.max_step / 50);
    if (P.fresh_start || loss_restarted) {
      d.cite_marker(P.resume_request, "progress.resume_request", "a resume from a checkpoint was requested");
      if (!d.st.resume_expected.empty())
        d.v.shows.push_back("the scheduler's record implies a continuation: " + d.st.resume_expected);
      if (P.fresh_start) d.cite_marker(P.fresh_start, "progress.fresh_start", "the job says it starts without a checkpoint");
      d.v.shows.push_back("no line says a checkpoint was loaded (no 'loading checkpoint' / 'Restoring states' / "
                         "'Continuing training from checkpoint' marker)");
      if (step_restarted) d.v.shows.push_back("the step counter starts at " + std::to_string(P.first_step));
      if (loss_restarted)
        d.v.shows.push_back("the first loss value (" + fmt(head.front().value) + ", line " + std::to_string(head.front().line) +
                           ") is a fresh model's: it then fell to about " + fmt(tr.end));
      const int witnesses = (P.fresh_start ? 1 : 0) + (loss_restarted ? 1 : 0) + (step_restarted ? 1 : 0) +
                            (P.resume_request && !d.st.resume_expected.empty() ? 1 : 0);
      return decide("resume_from_scratch", 0.45 + 0.12 * witnesses, "");
    }
  }
  // 2. A handful of steps.
  // Only counted steps count: frameworks log the loss every N steps, so a few loss
  // lines alone do not prove a few steps.
  // A run planned to be that short is no better: ten steps or fewer, all done.
  const bool handful = steps <= 3 || (P.total_steps && P.total_steps <= 10 && steps <= P.total_steps);
  if (!loss_only && steps >= 1 && handful && (P.have_step || P.total_steps)) {
    d.v.shows.push_back("training stopped after " + std::to_string(steps) + " step(s)" +
                       (P.total_steps ? " (the run planned " + std::to_string(P.total_steps) + ")" : ""));
    if (L.count()) d.v.shows.push_back(std::to_string(L.count()) + " loss value(s) were printed");
    return decide("undertrained", P.have_step && P.total_steps ? 0.75 : 0.65, "");
  }
  // 3. The loss did not go down.
  const bool flat_long = tr.trend == LossTracker::Trend::flat && L.finite_count() >= 20 &&
                         std::fabs(tr.end - tr.start) < 0.01 * std::max(std::fabs(tr.start), 1e-9);
  const bool grad_zero = P.grad_norm.count() >= 3 && P.grad_norm.max() <= 1e-8;
  const bool lr_zero = P.lr.count() >= 3 && std::fabs(P.lr.max()) <= 1e-12 && std::fabs(P.lr.min()) <= 1e-12;
  const auto head = L.head();
  const auto tail = L.tail();
  double peak = 0;
  for (const auto& x : tail) peak = std::max(peak, x.value);
  // Finite but absurd: no usual training loss ends above a million.
  double loss_max = 0;
  for (const auto& x : L.head()) loss_max = std::max(loss_max, std::fabs(x.value));
  for (const auto& x : L.tail()) loss_max = std::max(loss_max, std::fabs(x.value));
  const bool exploded = has_trend && (std::fabs(tr.end) >= 1e6 || (loss_max >= 1e6 && std::fabs(tr.end) >= 1e3));
  // Never really moved: ten or more values and less than an 8% drop end to end.
  const double rel = has_trend ? (tr.end - tr.start) / std::max(std::fabs(tr.start), 1e-9) : 0;
  const bool stuck = has_trend && L.finite_count() >= 10 && rel > -0.08;
  // Pinned at chance (ln K), or frozen: the same value to every printed digit five times
  // running, or three times when printed with four or more digits (coarse prints such as
  // "0.83" repeat by chance). A progress bar redraws one step's value on every refresh,
  // so it needs the stricter count; near-zero losses of a converged model are excluded.
  const std::optional<int> chance_k = L.pinned_at_chance();
  const auto last = L.last();
  bool progress_bar = false;
  for (const auto& t : d.scan.tail)
    if (last && t.line == last->line)
      progress_bar = t.text.find("it/s") != std::string::npos || t.text.find("s/it") != std::string::npos;
  const std::size_t repeats = L.exact_repeats();
  const bool frozen = last && last->value > 0.01 &&
                      (repeats >= 5 || (repeats >= 3 && !progress_bar && printed_digits(last->value) >= 4));
  const auto diverged = [&] {
    d.cite_loss_ends();
    std::string why = tr.trend == LossTracker::Trend::up ? "The run completed, but the loss rose instead of falling."
                                                         : "The run completed, but the loss never moved.";
    if (grad_zero) {
      d.v.shows.push_back("the gradient norm was 0 in all " + std::to_string(P.grad_norm.count()) +
                         " values printed (from line " + std::to_string(P.grad_norm.first_line()) + ")");
      why = "The run completed, but no gradient reached the weights (grad norm 0): frozen parameters or a detached loss.";
    }
    if (lr_zero) {
      d.v.shows.push_back("the learning rate was 0 in all " + std::to_string(P.lr.count()) + " values printed");
      why = "The run completed, but the learning rate was 0: the weights never changed.";
    }
    if (chance_k) {
      d.v.shows.push_back("the last 8 loss values are all " + fmt(last->value) + " = ln " +
                         std::to_string(*chance_k) + " (to line " + std::to_string(last->line) +
                         "): the loss of a uniform guess over " + std::to_string(*chance_k) + " classes");
      why = "The run completed, but the loss is pinned at chance level (ln " + std::to_string(*chance_k) +
            "): the model outputs the same uniform prediction and learns nothing (dead activations, a too-high learning "
            "rate that saturated the output, or labels that do not match the output layer).";
    }
    if (frozen && !chance_k) {
      d.v.shows.push_back("the last " + std::to_string(repeats) + " loss values are all exactly " + fmt(last->value) +
                         " (to line " + std::to_string(last->line) + "): the loss is frozen");
      why = "The run completed, but its loss is frozen at one value: the weights stopped changing (dead activations, "
            "a saturated output, a learning rate or optimizer that no longer updates them).";
    }
    if (exploded) why = "The run completed, but the loss exploded to an absurd (finite) value.";
    else if (stuck && tr.trend != LossTracker::Trend::up)
      why = "The run completed, but the loss stayed on a plateau near its starting value: the model did not learn.";
    double conf = tr.trend == LossTracker::Trend::up || exploded ? 0.7 : 0.55;
    if (grad_zero || lr_zero) conf += 0.15;
    if (loss_only) {
      const std::string lead = "The run completed, but t";
      if (why.rfind(lead, 0) == 0) why = "T" + why.substr(lead.size());
      conf -= 0.15;
    }
    decide("divergence", conf, why);
    if (loss_only)
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "No exit status was given: whether the run ended normally or was cut short is not known; "
                              "this verdict rests on the loss values alone.");
    else
      d.finding("healthy", "the process exited 0 with no error in the log", 0.3, {});
    return true;
    };
  const bool strong_div =
      has_trend && (tr.trend == LossTracker::Trend::up || flat_long || grad_zero || lr_zero || exploded || chance_k || frozen);
  if (strong_div) return diverged();
  // The share of the step spent waiting for the input pipeline (0 when not printed).
  const double data_frac = P.data_time.count() >= 3 && P.step_time.count() >= 3
                               ? P.data_time.sum() / std::max(P.step_time.sum(), 1e-12) *
                                     (static_cast<double>(P.step_time.count()) / static_cast<double>(P.data_time.count()))
                               : 0.0;
  const auto starved = [&](double conf) {
    d.v.shows.push_back("waiting for data took about " + std::to_string(static_cast<int>(std::min(data_frac, 1.0) * 100)) +
                       "% of the step time over " + std::to_string(P.data_time.count()) + " steps (from line " +
                       std::to_string(P.data_time.first_line()) + ")");
    if (P.loader_warning) d.cite_marker(P.loader_warning, "progress.loader_warning", "the data loader warns about its workers");
    decide("underutilized", conf, "");
    if (loss_only)
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "No exit status was given: how the run ended is not known; this verdict rests on the "
                              "printed step and data-loading times alone.");
    return true;
  };
  // A step that is mostly waiting for data is visible in any stretch of the log.
  // Throughput needs the run's real end: a pasted log's own "finished" line is not enough.
  const bool throughput_unknown = loss_only || d.completed_by_log;
  if (throughput_unknown && data_frac >= 0.7) return starved(0.5);
  if (throughput_unknown) return false;
  // 4. A setting that wastes the hardware.
  {
    const bool save_each = P.ckpt_saves >= 5 && steps > 0 && P.ckpt_saves * 2 >= steps;
    const bool socket = P.net_socket && !P.net_ib;
    if (save_each || P.launch_blocking || socket) {
      int n = 0;
      if (save_each) {
        d.cite_marker(P.first_save, "progress.ckpt_save",
                    std::to_string(P.ckpt_saves) + " checkpoint saves for " + std::to_string(steps) +
                        " training steps: a checkpoint nearly every step");
        ++n;
      }
      if (P.launch_blocking) {
        d.cite_marker(P.launch_blocking, "progress.launch_blocking",
                    "CUDA_LAUNCH_BLOCKING=1 is set: every CUDA kernel launch waits for the previous one");
        ++n;
      }
      if (socket) {
        d.cite_marker(P.net_socket, "progress.nccl_socket",
                    "NCCL runs its collectives over TCP sockets (NET/Socket), not InfiniBand/RoCE");
        ++n;
      }
      return decide("throughput_bound", 0.55 + 0.1 * n, "");
    }
  }
  // 5. One rank slower than its peers.
  if (P.ranks.size() >= 2) {
    const auto mean_of = [](double s, std::uint64_t n) { return n ? s / static_cast<double>(n) : -1.0; };
    std::vector<std::pair<std::string, double>> compute, wait, step;
    for (const auto& [r, t] : P.ranks) {
      if (t.compute_n) compute.emplace_back(r, mean_of(t.compute_sum, t.compute_n));
      if (t.wait_n) wait.emplace_back(r, mean_of(t.wait_sum, t.wait_n));
      if (t.step_n) step.emplace_back(r, mean_of(t.step_sum, t.step_n));
    }
    const auto outlier = [](const std::vector<std::pair<std::string, double>>& v, double ratio) -> std::optional<std::size_t> {
      if (v.size() < 2) return std::nullopt;
      std::size_t hi = 0;
      for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i].second > v[hi].second) hi = i;
      std::vector<double> others;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (i != hi) others.push_back(v[i].second);
      std::sort(others.begin(), others.end());
      const double med = others[others.size() / 2];
      if (med > 0 && v[hi].second >= ratio * med) return hi;
      return std::nullopt;
    };
    std::optional<std::string> slow;
    std::string how;
    if (auto i = outlier(compute, 1.5)) {
      slow = compute[*i].first;
      how = "its compute time per step is " + fmt(compute[*i].second * 1000) + " ms, well above its peers'";
    } else if (auto j = outlier(step, 1.3)) {
      slow = step[*j].first;
      how = "its step time is " + fmt(step[*j].second * 1000) + " ms, well above its peers'";
    }
    if (slow) {
      const auto& t = P.ranks.at(*slow);
      std::string rank = *slow;
      std::string digits;
      for (char c : rank)
        if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
      facts.emplace_back("rank", digits.empty() ? rank : digits);
      d.v.evidence.push_back(Citation{t.line, t.text, "progress.rank_timing"});
      d.v.shows.push_back("rank " + (digits.empty() ? rank : digits) + ": " + how + " (" + std::to_string(P.ranks.size()) +
                         " ranks compared)");
      if (!wait.empty()) d.v.shows.push_back("the other ranks spend their time waiting in the collective for it");
      return decide("straggler", 0.65, "");
    }
  }
  // 6. Throttle notices with slower steps.
  const bool timed = P.step_time.count() >= 6;
  const double slowdown = timed && P.step_time.early() > 0 ? P.step_time.late() / P.step_time.early() : 0;
  if (P.throttle_active_n > 0) {
    if (!timed || slowdown >= 1.2) {
      d.cite_marker(P.throttle_active, "progress.throttle", "a GPU clock throttle reason (thermal/power) is active");
      if (P.throttle_active_n > 1) d.v.shows.push_back(std::to_string(P.throttle_active_n) + " throttle-active records in all");
      if (timed)
        d.v.shows.push_back("the step time rose from about " + fmt(P.step_time.early()) + " s to about " +
                           fmt(P.step_time.late()) + " s (x" + fmt(slowdown) + ")");
      return decide("thermal_throttle", timed ? 0.75 : 0.5, "");
    }
  }
  // 7. The input pipeline dominates the step.
  if (data_frac >= 0.5) return starved(data_frac >= 0.7 ? 0.7 : 0.5);
  // A plateau near the starting value (weaker than the cases above).
  if (stuck) return diverged();
  // 8. Correct, but the steps became much slower than the run's own early steps.
  // Printed step times are often rounded (Keras "0ms/step"): demand a real difference too.
  if (timed && slowdown >= 2.0 && P.step_time.early() > 0 && P.step_time.late() - P.step_time.early() >= 0.005 &&
      tr.trend != LossTracker::Trend::up) {
    d.v.shows.push_back("the step time rose from about " + fmt(P.step_time.early()) + " s (early steps, from line " +
                       std::to_string(P.step_time.first_line()) + ") to about " + fmt(P.step_time.late()) +
                       " s (last steps, to line " + std::to_string(P.step_time.last_line()) + "): x" + fmt(slowdown));
    return decide("healthy_slow", tr.trend == LossTracker::Trend::down ? 0.7 : 0.55, "");
  }
  if (P.throttle_active_n > 0)
    d.finding("thermal_throttle", "line " + std::to_string(P.throttle_active.line) + ": " + P.throttle_active.text +
                                    " (throttling was reported, but the step time did not suffer)",
            0.3, {});
  return false;
}

}  // namespace gpualert::classify::detail
