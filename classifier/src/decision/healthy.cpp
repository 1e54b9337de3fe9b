// No cause and no disposition: healthy needs positive evidence (exit 0 and a run that
// learned; without an exit status, the program's own end-of-run line, the announced
// length reached, or a loss that kept falling), else hang (a log that ends in set-up
// chatter) or unknown, saying what would decide it.
#include "analyzers.hpp"

#include <algorithm>
#include <optional>

#include "wording.hpp"

namespace gpualert::classify::detail {

namespace {

// What the end-of-run line says, by the rule that read it.
std::string end_line_claim(const std::string& rule) {
  if (rule == "progress.run_end") return "the training program says that it finished";
  if (rule == "progress.final_evaluation") return "the run ends with a test-set result, printed once, after its training";
  return "the shell's time report says the command ended here, with no error before it";
}

// What the marker of the announced length reached shows.
std::string announced_end_claim(const ProgressTracker& P, const Marker* end) {
  if (end == &P.last_counted_step && P.steps_from_closing_metrics)
    return "the closing metrics (train_runtime x train_steps_per_second) imply " + std::to_string(P.max_step) +
           " steps, the " + std::to_string(P.total_steps) + " announced";
  if (end == &P.last_counted_step)
    return "step " + std::to_string(P.max_step) + " of the " + std::to_string(P.total_steps) + " announced" +
           (P.steps_taken() > P.max_step ? " (counted from 0)" : "");
  if (end == &P.bar_end) return "the training's progress bar reached its full count";
  if (end == &P.last_lr)
    return "the learning rate decayed to " + fmt(P.lr.values().back()) + ", under 2% of its highest (" + fmt(P.lr.max()) +
           ") and less than one more decrement above zero: its schedule's end";
  if (end == &P.bare_epoch_last)
    return "epoch " + std::to_string(P.bare_epoch_high) + ", the last of the " + std::to_string(P.announced_epochs) +
           " epochs its settings announced" + (P.bare_epoch_first == 0 ? " (counted from 0)" : "");
  return "epoch " + std::to_string(P.max_epoch) + " of the " + std::to_string(P.total_epochs) +
         " announced: the run reached its planned length";
}

// A reinforcement-learning run's learning curve is its return, not its loss terms.
void show_return(Decision& d) {
  const ReturnTracker& R = d.scan.progress.returns;
  if (!R.is_curve()) return;
  d.v.shows.push_back("the " + R.key() + " went from " + R.first_value() + " (line " + std::to_string(R.first_line()) +
                      ") to " + R.last_value() + " (line " + std::to_string(R.last_line()) + ") over " +
                      std::to_string(R.count()) + " records");
}

}  // namespace

void healthy_from_text(Decision& d, const Citation* fin, const Marker* end, Facts& facts) {
  const auto tr = d.scan.loss.trend();
  const bool down = tr.trend == LossTracker::Trend::down;
  d.set_class("healthy");
  double conf = 0.3;
  if (fin) {
    d.v.evidence.push_back(*fin);
    d.v.shows.push_back("line " + std::to_string(fin->line) + ": " + end_line_claim(fin->rule));
    conf += fin->rule == "progress.run_end" ? 0.15 : 0.1;
  }
  if (end) {
    d.cite_marker(*end, "progress.announced_end", announced_end_claim(d.scan.progress, end));
    conf += 0.15;
  }
  if (down) {
    d.v.shows.push_back(d.loss_summary());
    conf += 0.15;
  }
  show_return(d);
  d.v.shows.push_back("no error, crash or scheduler action was found in " + std::to_string(d.scan.lines) + " lines");
  d.add_text("healthy", facts);
  d.v.confidence = std::min(conf, 0.65);
  if (!fin && !end)
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "The log stops while training still runs, with no end-of-run line and no announced length "
                            "reached: the run may have gone on to finish, or been stopped after this point.");
  d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                          "No exit status was given: the process may still have failed after the last line (saving, "
                          "evaluation, shutdown).");
}

Verdict healthy_or_not(Decision& d) {
  const auto tr = d.scan.loss.trend();
  d.show_status();
  Facts facts;
  if (d.exit_status.code) facts.emplace_back("exit_code", std::to_string(*d.exit_status.code));
  const ProgressTracker& P = d.scan.progress;

  // A pasted log: no exit status, no scheduler state, nothing the wrapper knows.
  const bool pasted = !d.exit_status.code && d.slurm.empty() && !d.st.exec_failed;
  std::optional<Citation> end_line;  // the end-of-run line, with the rule that read it
  if (const Citation* c = pasted ? finish_marker_near_end(d) : nullptr) end_line = Citation{c->line, c->text, "progress.run_end"};
  else if (pasted) end_line = program_end_near_end(d);
  const Citation* fin = end_line ? &*end_line : nullptr;
  std::vector<Citation> chatter;  // a pasted log's last lines, when all are distributed set-up
  if (pasted && !fin) ends_in_setup_chatter(d, chatter);
  if (d.exit_status.zero) {
    if (!done_but_bad(d, facts)) {
      d.set_class("healthy");
      double conf = 0.5;
      const bool down = tr.trend == LossTracker::Trend::down;
      if (down) {
        d.v.shows.push_back(d.loss_summary());
        conf += 0.25;
      }
      show_return(d);
      if (P.have_step || P.progress_lines)
        d.v.shows.push_back(std::to_string(P.have_step ? P.max_step : P.progress_lines) +
                           (P.have_step ? " training steps were reached" : " progress lines were printed"));
      if (d.slurm == "COMPLETED") conf += 0.1;
      d.v.shows.push_back("no error, crash or scheduler action was found in " + std::to_string(d.scan.lines) + " lines");
      d.add_text("healthy", facts);
      if (tr.trend == LossTracker::Trend::none) {
        conf = std::min(conf, 0.35);
        d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                                "Training correctness: unverifiable. No training-progress format was recognised (no loss "
                                "values), so whether the model learned cannot be checked from the log; only the exit status "
                                "says it ended normally.");
      } else if (tr.trend == LossTracker::Trend::too_few) {
        conf = std::min(conf, 0.4);
        d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                                "Only " + std::to_string(d.scan.loss.count()) +
                                    " loss value(s) were printed: too few to tell whether it learned.");
      } else if (tr.trend == LossTracker::Trend::flat) {
        d.v.cannot_decide.insert(d.v.cannot_decide.begin(), "The loss barely moved (" + d.loss_summary() + "); it may not have learned.");
      }
      if (!d.st.events_collected) d.v.cannot_decide.push_back("No kernel log was given: a latent GPU fault (Xid/ECC) during the run cannot be excluded.");
      d.v.confidence = std::min(conf, 0.95);
      // Suspicions that are not strong enough to be the verdict.
      if (P.loader_warning)
        d.finding("underutilized", "suspected: line " + std::to_string(P.loader_warning.line) + ": " + P.loader_warning.text, 0.3, {});
    }
  } else if (const Marker* end = pasted && !fin && tr.trend != LossTracker::Trend::up ? announced_end_reached(d) : nullptr;
             pasted && (fin || end)) {
    // The program says it finished, or reached the length it announced: judge it as a
    // completed run (a handful of steps, a loss that went wrong, steps that slowed or
    // starved), else healthy as far as the text goes.
    d.completed_by_log = true;
    if (!done_but_bad(d, facts)) healthy_from_text(d, fin, end, facts);
  } else if (pasted && done_but_bad(d, facts)) {
    // No exit status, no error, but the loss says the training went wrong.
  } else if (pasted && chatter.empty() && P.loader_warning) {
    // Stopped mid-run with nothing wrong but the data loader's own warning that it has
    // more workers than the node has CPUs (or too few to keep up): the input pipeline.
    d.set_class("underutilized");
    d.cite_marker(P.loader_warning, "progress.loader_warning", "the data loader warns about its workers");
    if (P.step_time().count())
      d.v.shows.push_back("the printed step time is about " + fmt(P.step_time().late()) + " s (" +
                          std::to_string(P.step_time().count()) + " values)");
    if (tr.trend == LossTracker::Trend::down) d.v.shows.push_back(d.loss_summary());
    d.add_text("underutilized", facts);
    d.v.confidence = 0.4;
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                             "No exit status was given and the log stops while training runs: the warning is the only "
                             "finding; the data-loading share of the step time was not printed.");
  } else if (pasted && chatter.empty() && tr.trend == LossTracker::Trend::down && d.scan.loss.finite_count() >= 8) {
    // Still training when the text stops, learning, and no error: the best reading is a
    // healthy run (a log copied or captured before the end), said to be unconfirmed.
    healthy_from_text(d, nullptr, nullptr, facts);
  } else if (const auto mid = pasted && chatter.empty() ? stopped_mid_plan(d) : std::nullopt) {
    // No exit status, no error, and the output stops inside training far short of the
    // length it announced: the picture of a job that stopped progressing (the complaint
    // such a log is usually pasted with), said to be a guess.
    d.set_class("hang");
    d.cite_marker(*mid->at, "progress.stopped_mid_plan", mid->claim);
    if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few) d.v.shows.push_back(d.loss_summary());
    d.add_text("hang", facts);
    d.v.confidence = 0.3;
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "No exit status or timing was given: that the job stalled here is inferred from where its "
                            "output stops; a run still going, or a log cut short by whoever copied it, looks the same. "
                            "The time of the last line against the job's end (or its state) would decide it.");
  } else if (!chatter.empty()) {
    // A pasted log that stops inside NCCL / process-group set-up, with no error after it:
    // the classic picture of ranks waiting for each other forever.
    d.set_class("hang");
    d.v.evidence.insert(d.v.evidence.end(), chatter.begin(), chatter.end());
    d.v.shows.push_back("the log ends (line " + std::to_string(d.scan.lines) +
                       ") in distributed set-up messages (NCCL / process-group initialisation) with no error after them");
    d.add_text("hang", facts);
    d.v.confidence = 0.3;
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "No exit status or timing was given: that the job stalled here is inferred from where its "
                            "output stops; a log cut short by whoever copied it looks the same.");
  } else {
    d.set_class("unknown");
    if (!d.exit_status.code && d.slurm.empty()) {
      d.v.shows.push_back("no exit status was given and no rule named a cause in " + std::to_string(d.scan.lines) + " lines");
      d.v.confidence = 0.2;
    } else {
      d.v.shows.push_back("no rule recognised a cause in " + std::to_string(d.scan.lines) + " lines");
      d.v.confidence = 0.3;
    }
    if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few) d.v.shows.push_back(d.loss_summary());
    // A launcher's report that something died (Ray's dead actor, torchrun's
    // ChildFailedError) proves a failure without naming its cause: say so.
    for (std::size_t i = 0; i < d.rules.rules.size(); ++i) {
      if (d.rules.rules[i].role != Role::wrapper || d.scan.hits[i].count == 0) continue;
      const Hit* h = d.scan.hits[i].all().front();
      d.v.shows.push_back("line " + std::to_string(h->line) + ": " + d.says(*h));
      break;
    }
    int n = 0;
    for (auto it = d.scan.tail.rbegin(); it != d.scan.tail.rend() && n < 3; ++it) {
      if (it->text.find_first_not_of(' ') == std::string::npos) continue;
      d.v.evidence.insert(d.v.evidence.begin(), Citation{it->line, it->text, "tail"});
      ++n;
    }
    if (n) d.v.shows.push_back("the log ends at line " + std::to_string(d.scan.lines) + " with the lines cited below");
    d.add_text("unknown", facts);
    if (!d.exit_status.code && d.slurm.empty())
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "Without an exit status it is not even known whether the job failed.");
    else
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "Why the process ended with this status: the log holds no recognised error, signal or scheduler message.");
  }
  d.add_side_findings("");
  for (const Hit* h : d.signal_hits) {
    // A plain exit status ("task 0: Exited with exit code 2") is no signal at all.
    if (!h->signal) continue;
    d.finding("signal_kill", "line " + std::to_string(h->line) + ": " + d.says(*h), 0.2, {h});
    break;
  }
  d.v.facts = facts;
  d.note_scan_limits();
  if (d.v.cannot_decide.empty()) d.v.cannot_decide.push_back("Nothing beyond what the log and the exit status show.");
  return std::move(d.v);
}

}  // namespace gpualert::classify::detail
