// Where a log shows its run ended, without an exit status: the program's own end-of-run
// line, a single test-set result or the shell's time report after training, the length
// the run announced reached, or (against it) a last stretch of distributed set-up chatter.
#include <algorithm>
#include <optional>

#include "analyzers.hpp"
#include "re2/re2.h"

namespace gpualert::classify::detail {

bool ends_in_setup_chatter(const Decision& d, std::vector<Citation>& last) {
  static const RE2 chatter(
      R"(NCCL INFO|Reducer buckets have been rebuilt|Distributed group initialized|Initializing (?:process group|distributed)|)"
      R"(store_based_barrier_key|Completed store-based barrier|Init COMPLETE|Connected all (?:rings|trees)|)"
      R"(Added key: |Rank \d+ is waiting|MASTER_ADDR=|Setting up distributed|Using network (?:IB|Socket)|)"
      R"(init_distributed|Initializing TorchBackend|batch_all_reduce: \d+ all-reduces)");
  std::vector<const Citation*> lines;  // the last non-blank lines, newest first
  for (auto it = d.scan.tail.rbegin(); it != d.scan.tail.rend() && lines.size() < 4; ++it)
    if (it->text.find_first_not_of(" \t") != std::string::npos) lines.push_back(&*it);
  // A paste cut mid-line leaves a stub that starts like the line before it: skip it.
  if (lines.size() >= 2 && lines[0]->text.size() < lines[1]->text.size() &&
      lines[1]->text.compare(0, lines[0]->text.size(), lines[0]->text) == 0)
    lines.erase(lines.begin());
  for (std::size_t i = 0; i < lines.size() && i < 3; ++i) {
    if (!RE2::PartialMatch(lines[i]->text, chatter)) return false;
    last.insert(last.begin(), *lines[i]);
  }
  return !last.empty();
}

const Citation* finish_marker_near_end(const Decision& d) {
  const int rule = d.rule_index("progress.run_end");
  if (rule < 0) return nullptr;
  std::uint64_t last = 0;
  for (const Hit* h : d.scan.hits[static_cast<std::size_t>(rule)].all()) last = std::max(last, h->line);
  if (!last) return nullptr;
  int n = 0;
  for (auto it = d.scan.tail.rbegin(); it != d.scan.tail.rend() && n < 25; ++it, ++n)
    if (it->line == last) return &*it;
  return nullptr;
}

std::optional<Citation> program_end_near_end(const Decision& d) {
  const ProgressTracker& P = d.scan.progress;
  const auto head = d.scan.loss.head();
  std::uint64_t first_progress = head.empty() ? 0 : head.front().line;
  // Training seen: a loss, a counted epoch or step, or bare epoch lines ("Epoch 199: ...")
  // of a loop that prints only its validation figures.
  for (const Marker* m : {&P.last_epoch, &P.last_counted_step, &P.bare_epoch_last})
    if (m->line && (!first_progress || m->line < first_progress)) first_progress = m->line;
  if (!first_progress) return std::nullopt;  // no training seen: an end of nothing
  for (const char* id : {"progress.final_evaluation", "progress.command_ended"}) {
    const int rule = d.rule_index(id);
    if (rule < 0) continue;
    const auto hits = d.scan.hits[static_cast<std::size_t>(rule)].all();
    if (hits.empty() || hits.front()->line <= first_progress) continue;
    // Printed once, after training: no training progress after its first line except
    // on its own lines (a "test loss: 0.41" is read as a loss value too).
    const std::uint64_t last_progress = d.scan.last_progress_line;
    const bool on_own_line = std::any_of(hits.begin(), hits.end(), [&](const Hit* h) { return h->line == last_progress; });
    if (last_progress >= hits.front()->line && !on_own_line) continue;
    int n = 0;
    for (auto it = d.scan.tail.rbegin(); it != d.scan.tail.rend() && n < 25; ++it, ++n)
      if (it->line == hits.back()->line) return Citation{it->line, it->text, id};
  }
  return std::nullopt;
}

const Marker* announced_end_reached(const Decision& d) {
  const ProgressTracker& P = d.scan.progress;
  const std::uint64_t done = P.steps_taken();
  if (P.total_steps && P.last_counted_step && done >= P.total_steps) return &P.last_counted_step;
  if (P.counted_epochs_done()) return &P.last_epoch;
  if (!P.total_epochs && P.bare_epochs_done()) return &P.bare_epoch_last;
  // The training's own progress bar at its full count, unless a counter says more was planned.
  const bool more_planned = (P.total_steps && done < P.total_steps) ||
                            (P.total_epochs >= 2 && !P.counted_epochs_done()) ||
                            (!P.total_epochs && P.bare_epoch_last && P.announced_epochs && !P.bare_epochs_done());
  if (P.bar_end_full && !more_planned) return &P.bar_end;
  if (P.lr_schedule_ended() && !more_planned) return &P.last_lr;
  return nullptr;
}

std::optional<MidPlanStop> stopped_mid_plan(const Decision& d) {
  const ProgressTracker& P = d.scan.progress;
  MidPlanStop out;
  double share = -1;
  std::string where;
  if (P.total_steps && P.have_step && P.last_counted_step) {
    share = static_cast<double>(P.steps_taken()) / static_cast<double>(P.total_steps);
    out.at = &P.last_counted_step;
    where = "step " + std::to_string(P.max_step) + " of the " + std::to_string(P.total_steps) + " announced";
  } else if (P.total_epochs >= 2 && P.last_epoch) {
    share = static_cast<double>(P.max_epoch) / static_cast<double>(P.total_epochs);
    out.at = &P.last_epoch;
    where = "epoch " + std::to_string(P.max_epoch) + " of the " + std::to_string(P.total_epochs) + " announced";
  }
  if (!out.at || share < 0 || share >= 0.9) return std::nullopt;
  // The output must stop at a boundary of the training: its last line the next epoch's
  // header ("Epoch 3/50") or an epoch's bar at its full count, where the next epoch, or the
  // evaluation between them, never came. A paste that stops inside a bar is as likely a
  // snippet its author cut as a stall.
  std::uint64_t last_line = 0;
  for (auto it = d.scan.tail.rbegin(); it != d.scan.tail.rend() && !last_line; ++it)
    if (it->text.find_first_not_of(" \t") != std::string::npos) last_line = it->line;
  // A record that closes an epoch with its figures ("epoch 2/20 loss 0.41") is where any
  // paste of a run's first epochs stops: not a boundary that says anything.
  const auto loss_at_end = d.scan.loss.last();
  const bool bare_header = last_line == P.last_epoch.line && !(loss_at_end && loss_at_end->line == last_line);
  const bool boundary = last_line && (bare_header || (P.bar_end_full && last_line == P.bar_end.line));
  if (!boundary) return std::nullopt;
  const int pct = static_cast<int>(share * 100 + 0.5);
  out.claim = "the output stops at " + where + " (" + (pct ? std::to_string(pct) : std::string("under 1")) +
              "% of the plan), at the boundary of an epoch, with no error and no end-of-run line";
  return out;
}

}  // namespace gpualert::classify::detail
