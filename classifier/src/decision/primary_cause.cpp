// The primary cause among the collected evidence: the most specific cause; the
// scheduler's action only when nothing concrete came before it; a hang over the timeout
// or kill that ended it; for a failed run with nothing else, a warning that names a cause.
#include "analyzers.hpp"

namespace gpualert::classify::detail {

PrimaryChoice choose_primary(Decision& d) {
  std::optional<Cand> best;
  for (const auto& [cls, c] : d.causes)
    if (!best || better(c, *best)) best = c;

  PrimaryChoice out;
  std::optional<Cand>& primary = out.primary;
  bool& disposition_primary = out.disposition_primary;
  if (d.disposition) {
    const auto dline = d.disposition->line ? d.disposition->line : UINT64_MAX;
    const int need = d.disposition->cls == "node_fail" ? kNodeFailBeats : kConcrete;
    std::optional<Cand> before;
    for (const auto& [cls, c] : d.causes) {
      const bool prior = c.line ? c.line < dline : true;
      if ((prior && c.priority >= need) || c.priority >= 100) {
        if (!before || better(c, *before)) before = c;
      }
    }
    if (before) {
      primary = before;
    } else {
      primary = d.disposition;
      disposition_primary = true;
    }
  } else if (best) {
    primary = best;
  }
  prefer_hang(d, primary, disposition_primary, out.ended_by);
  // A failed run with nothing stronger: a warning that names a concrete cause (NCCL
  // prints its CUDA failures as "NCCL WARN") is the best lead, said to be one. So it is
  // for a pasted log with no exit status that never got to train: nothing else in it
  // could have ended the job. Unless it ends in distributed set-up messages: the job
  // lived on after the warning, and stalled there (healthy_or_not's hang).
  const bool failed = d.exit_status.code && *d.exit_status.code != 0;
  std::vector<Citation> chatter;
  const bool pasted_before_training = !d.exit_status.code && d.slurm.empty() && !d.st.exec_failed &&
                                      d.scan.progress.progress_lines == 0 && d.scan.loss.count() == 0 &&
                                      !ends_in_setup_chatter(d, chatter);
  if (!primary && (failed || pasted_before_training)) {
    for (const auto& [cls, c] : d.weak)
      if (c.priority >= kConcrete && c.hit && c.hit->on_warning && !c.hit->demoted && (!primary || better(c, *primary)))
        primary = c;
    out.from_warning = primary.has_value();
  }
  return out;
}

}  // namespace gpualert::classify::detail
