// The decider: runs the evidence collectors, then combines what they found by a fixed
// precedence (documented in analyzers.hpp): root cause over symptom, the scheduler's
// action only when nothing concrete came first, a hang over the timeout that ended it,
// the exit status and Slurm's state as independent witnesses, healthy only on positive
// evidence.
#include "../decision.hpp"

#include <algorithm>

#include "analyzers.hpp"
#include "wording.hpp"

namespace gpualert::classify::detail {

Verdict decide(const RuleSet& rules, const ScanResult& scan, const RunStatus& status) {
  Decision d(rules, scan, status);
  d.v.lines_read = d.scan.lines;
  d.v.bytes_read = d.scan.bytes;
  d.v.partial_scan = d.scan.partial;
  d.v.long_lines = d.scan.long_lines;
  for (const auto& c : d.scan.tail) d.v.tail.push_back(c);
  collect_rule_evidence(d);
  collect_scheduler_state(d);
  collect_kernel_events(d);
  collect_exit_evidence(d);

  const PrimaryChoice choice = choose_primary(d);
  if (!choice.primary) return healthy_or_not(d);

  const Cand& p = *choice.primary;
  if (choice.disposition_primary && p.cls == "cancelled") {
    // Cancelled after its loss had gone wrong: the divergence is the cause, the cancel how it ended.
    Facts facts;
    if (diverged_before_stop(d, facts)) {
      d.finding("cancelled", p.claim + " (how the run ended, after its loss had gone wrong)", 0.7,
                p.hit ? std::vector<const Hit*>{p.hit} : std::vector<const Hit*>{});
      d.add_side_findings("");
      d.v.facts = facts;
      d.note_scan_limits();
      return std::move(d.v);
    }
  }
  if (const auto& ended_by = choice.ended_by) {
    d.v.implies.push_back("The " + ended_by->cls + " only ended a job that had already stopped progressing; it is not the cause.");
    d.finding(ended_by->cls, ended_by->claim + " (how the hung job ended, not why)", 0.7,
              ended_by->hit ? std::vector<const Hit*>{ended_by->hit} : std::vector<const Hit*>{});
  }
  d.set_class(p.cls);
  const Facts facts = show_cause(d, p);
  d.add_text(p.cls, facts);
  const int agree = weigh_witnesses(d, p, choice.disposition_primary);
  relate_findings(d, p, choice.disposition_primary);
  add_caveats(d, p, choice.from_warning, agree);

  // Broader ids for a coarser label set: the other classes the deciding line also matched.
  if (p.hit)
    for (const auto& c : p.hit->line_classes)
      if (c != p.cls && std::find(d.v.broader.begin(), d.v.broader.end(), c) == d.v.broader.end()) d.v.broader.push_back(c);
  d.v.facts = facts;
  d.note_scan_limits();
  return std::move(d.v);
}

}  // namespace gpualert::classify::detail
