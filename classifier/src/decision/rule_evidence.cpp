// Evidence from the rules that matched the log, and from the loss values: per class the
// earliest strong hit decides; warnings, hints and errors training ran past are kept apart.
#include "analyzers.hpp"
#include "wording.hpp"

namespace gpualert::classify::detail {

void collect_rule_evidence(Decision& d) {
  // Slurm reports 0:0 for a job it timed out or cancelled: then "exit 0" is no sign of success.
  static const char* const kEnded[] = {"TIMEOUT", "CANCELLED", "PREEMPTED", "NODE_FAIL", "FAILED", "OUT_OF_MEMORY",
                                       "DEADLINE", "BOOT_FAIL", "REQUEUED"};
  for (const char* s : kEnded)
    if (d.slurm == s) d.exit_status.zero = false;
  for (std::size_t i = 0; i < d.rules.rules.size(); ++i)
    if (d.rules.rules[i].role == Role::disposition)
      for (const Hit* h : d.scan.hits[i].all())
        if (!h->on_warning) d.exit_status.zero = false;

  for (std::size_t i = 0; i < d.rules.rules.size(); ++i) {
    const Rule& r = d.rules.rules[i];
    const RuleHits& rh = d.scan.hits[i];
    if (rh.count == 0) continue;
    const auto hits = rh.all();
    if (r.role == Role::signal) {
      for (const Hit* h : hits) {
        d.signal_hits.push_back(h);
        // The strongest signal evidence in the log: a crash signal beats SIGTERM/SIGINT.
        if (signal_rank(h->signal) > signal_rank(d.log_signal)) {
          d.log_signal = h->signal;
          d.log_signal_line = h->line;
          d.log_signal_hit = h;
        }
      }
      continue;
    }
    if (r.role == Role::disposition) {
      for (const Hit* h : hits) {
        if (h->on_warning) continue;
        Cand c{r.cls, r.priority, h->line, h, d.says(*h), "log", {}, rh.count, 1, {}, false};
        if (!d.disposition || better(c, *d.disposition)) d.disposition = c;
      }
      continue;
    }
    if (r.role != Role::cause && r.role != Role::hint) continue;
    // Per rule, the earliest strong hit decides; the rest support it.
    std::vector<const Hit*> strong, weak, recovered;
    for (const Hit* h : hits) {
      if (h->on_warning || h->demoted || r.role == Role::hint) weak.push_back(h);
      else if ((d.exit_status.zero || r.until_progress) && d.scan.last_progress_line > h->line) recovered.push_back(h);
      else strong.push_back(h);
    }
    auto mk = [&](const std::vector<const Hit*>& v) {
      Cand c{r.cls, r.priority, v.front()->line, v.front(), d.says(*v.front()), "log", v, rh.count, 1, {}, false};
      return c;
    };
    if (!strong.empty()) d.add_cand(mk(strong));
    if (!weak.empty()) {
      Cand c = mk(weak);
      auto it = d.weak.find(c.cls);
      if (it == d.weak.end() || better(c, it->second)) d.weak[c.cls] = c;
    }
    if (!recovered.empty()) {
      Cand c = mk(recovered);
      auto it = d.recovered.find(c.cls);
      if (it == d.recovered.end() || better(c, it->second)) d.recovered[c.cls] = c;
    }
  }

  // The loss: non-finite at the end is a cause; non-finite earlier and then finite is not.
  const LossTracker& L = d.scan.loss;
  const ClassText* nan_text = d.rules.text_for("nan_loss");
  const int nan_prio = nan_text && nan_text->has_priority ? nan_text->priority : 70;
  if (L.last_nonfinite()) {
    Cand c{"nan_loss", nan_prio, L.nonfinite_streak_start(), nullptr,
           "the " + L.key() + " value became non-finite at line " + std::to_string(L.nonfinite_streak_start()) +
               " and stayed so to the last value printed (" + std::to_string(L.nonfinite()) + " non-finite of " +
               std::to_string(L.count()) + " values)",
           "loss", {}, L.nonfinite(), 1, {}, false};
    d.add_cand(c);
  } else if (L.nonfinite() > 0) {
    Cand c{"nan_loss", nan_prio, L.first_nonfinite_line(), nullptr,
           std::to_string(L.nonfinite()) + " non-finite " + L.key() + " value(s) from line " +
               std::to_string(L.first_nonfinite_line()) + ", but later values were finite again",
           "loss", {}, L.nonfinite(), 1, {}, false};
    // Without an exit status nothing says the run got past them: repeated non-finite
    // losses are then the best lead (a later finite series may be another run).
    if (!d.exit_status.code && d.slurm.empty() && L.nonfinite() >= 3) d.add_cand(c);
    else d.recovered["nan_loss"] = c;
  }
  if (const auto z = L.nonfinite() ? std::nullopt : L.zeroed()) {
    d.add_cand(Cand{"nan_loss", nan_prio, z->from_line, nullptr,
                    "the " + L.key() + " went from " + fmt(z->before) + " (line " + std::to_string(z->before_line) +
                        ") to exactly 0 from line " + std::to_string(z->from_line) + " on (" + std::to_string(z->count) +
                        " values in a row): a logged loss of exactly 0 after a real one is how a training loop that "
                        "drops non-finite losses from its average (Hugging Face Trainer's logging_nan_inf_filter) "
                        "shows steps whose loss was NaN or inf",
                    "loss", {}, z->count, 1, {}, false});
  }
  // No named loss at all, but a counter-and-number series (print(epoch, loss)) whose
  // values turned non-finite for good after finite ones.
  const BareSeries& B = d.scan.bare;
  if (!L.count() && B.streak() >= 3 && B.finite() >= 3) {
    d.add_cand(Cand{"nan_loss", nan_prio, B.streak_start(), nullptr,
                    "the unnamed value printed after each counter (a loop's print(epoch, loss)) became non-finite at "
                    "line " + std::to_string(B.streak_start()) + " and stayed so to the last of them (" +
                        std::to_string(B.streak()) + " in a row, after " + std::to_string(B.finite()) + " finite values)",
                    "loss", {}, B.streak(), 1, {}, false});
  }
  // No named loss, but records of several named metrics (a rate-distortion "rd", an
  // "elbo") most of which turned non-finite and stayed so.
  const MetricRecords& M = d.scan.records;
  if (!L.count() && M.streak() >= 2 && M.any_finite()) {
    d.add_cand(Cand{"nan_loss", nan_prio, M.streak_start(), nullptr,
                    std::to_string(M.streak_nonfinite()) + " of the " + std::to_string(M.streak_metrics()) +
                        " metrics printed at line " + std::to_string(M.streak_start()) +
                        " are non-finite, and most of every record's metrics stay so to the last of them (" +
                        std::to_string(M.streak()) + " records in a row, after records with every metric finite)",
                    "loss", {}, M.streak(), 1, {}, false});
  }
  // Every gradient norm printed is nan/inf, and the loss reads exactly 0 at the end (or
  // five records or more say so): the weights took non-finite updates (Hugging Face
  // Trainer's 'grad_norm': nan; its logged loss of 0.0 is the NaN steps left out).
  const ProgressTracker& P = d.scan.progress;
  const auto last = L.last();
  if (!L.nonfinite() && P.grad_records >= 2 && P.grad_nonfinite_streak == P.grad_records &&
      ((last && last->value == 0.0) || P.grad_records >= 5)) {
    d.add_cand(Cand{"nan_loss", nan_prio, P.grad_nonfinite_from, nullptr,
                    "the gradient norm was non-finite (nan/inf) in all " + std::to_string(P.grad_records) +
                        " records printed, from line " + std::to_string(P.grad_nonfinite_from) +
                        (last && last->value == 0.0 ? ", and the loss reads exactly 0 at line " + std::to_string(last->line)
                                                    : std::string()),
                    "loss", {}, P.grad_records, 1, {}, false});
  }
  if (!L.nonfinite() && L.eval_nonfinite()) {
    d.add_cand(Cand{"nan_loss", nan_prio, L.eval_nonfinite_line(), nullptr,
                    "the " + L.eval_key() + " was non-finite in " + std::to_string(L.eval_nonfinite()) +
                        " evaluation(s), from line " + std::to_string(L.eval_nonfinite_line()),
                    "loss", {}, L.eval_nonfinite(), 1, {}, false});
  }
}

}  // namespace gpualert::classify::detail
