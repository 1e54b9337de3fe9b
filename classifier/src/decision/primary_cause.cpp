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
  // prints its CUDA failures as "NCCL WARN") is the best lead, said to be one.
  if (!primary && d.exit_status.code && *d.exit_status.code != 0) {
    for (const auto& [cls, c] : d.weak)
      if (c.priority >= kConcrete && c.hit && c.hit->on_warning && !c.hit->demoted && (!primary || better(c, *primary)))
        primary = c;
    out.from_warning = primary.has_value();
  }
  return out;
}

}  // namespace gpualert::classify::detail
