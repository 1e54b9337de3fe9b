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

  // 1. The best concrete cause; a scheduler disposition only if nothing concrete came first.
  std::optional<Cand> best;
  for (const auto& [cls, c] : d.causes)
    if (!best || better(c, *best)) best = c;

  std::optional<Cand> primary;
  bool disposition_primary = false;
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
  std::optional<Cand> ended_by;
  prefer_hang(d, primary, disposition_primary, ended_by);
  // A failed run with nothing stronger: a warning that names a concrete cause (NCCL
  // prints its CUDA failures as "NCCL WARN") is the best lead, said to be one.
  bool from_warning = false;
  if (!primary && d.exit_status.code && *d.exit_status.code != 0) {
    for (const auto& [cls, c] : d.weak)
      if (c.priority >= kConcrete && c.hit && c.hit->on_warning && !c.hit->demoted && (!primary || better(c, *primary)))
        primary = c;
    from_warning = primary.has_value();
  }
  if (!primary) return healthy_or_not(d);

  const Cand& p = *primary;
  if (ended_by) {
    d.v.implies.push_back("The " + ended_by->cls + " only ended a job that had already stopped progressing; it is not the cause.");
    d.finding(ended_by->cls, ended_by->claim + " (how the hung job ended, not why)", 0.7,
            ended_by->hit ? std::vector<const Hit*>{ended_by->hit} : std::vector<const Hit*>{});
  }
  d.set_class(p.cls);

  // 2. Shows: the deciding lines, then the independent witnesses.
  Facts facts;
  if (p.hit) facts = p.hit->facts;
  for (const Hit* h : p.support)
    for (const auto& f : h->facts)
      if (!find_fact(facts, f.first)) facts.push_back(f);
  if (p.hit) {
    const std::string rank = rank_of(p.hit->text);
    if (!rank.empty() && !find_fact(facts, "rank")) facts.emplace_back("rank", rank);
    if (p.hit->section >= 0 && static_cast<std::size_t>(p.hit->section) < d.scan.sections.size()) {
      // "srun #0, node n1, task 3": the node matters to an admin (drain it?), the task to the user.
      const std::string& sec = d.scan.sections[static_cast<std::size_t>(p.hit->section)];
      const auto node = sec.find("node ");
      if (node != std::string::npos && !find_fact(facts, "node"))
        facts.emplace_back("node", sec.substr(node + 5, sec.find(',', node) == std::string::npos ? std::string::npos
                                                                                                   : sec.find(',', node) - node - 5));
      const auto task = sec.rfind("task ");
      if (task != std::string::npos && !find_fact(facts, "task")) facts.emplace_back("task", sec.substr(task + 5));
    }
    d.cite(*p.hit, 3);
    for (const Hit* h : p.support) d.cite(*h, 3);
  } else {
    d.v.shows.push_back(p.line ? "line " + std::to_string(p.line) + ": " + p.claim : p.claim);
  }
  for (const auto& c : p.cites) d.v.evidence.push_back(c);
  if (p.count > 3) d.v.shows.push_back(std::to_string(p.count) + " lines in all point to " + p.cls);
  // Other rules of the same class that matched (e.g. the exception type and the message).
  if (p.source == "log") {
    for (std::size_t i = 0; i < d.rules.rules.size(); ++i) {
      const Rule& r = d.rules.rules[i];
      if (r.cls != p.cls || r.role != Role::cause || d.scan.hits[i].count == 0) continue;
      for (const Hit* h : d.scan.hits[i].all())
        if (!h->on_warning && !h->demoted && d.v.evidence.size() < 6) d.cite(*h, 4);
    }
  }
  d.show_status();
  if (const LauncherSummary& ls = d.scan.launcher; ls.seen() && (!ls.rank().empty() || !ls.host().empty())) {
    d.v.shows.push_back("line " + std::to_string(ls.line()) + ": the launcher's failure report names " +
                       (ls.rank().empty() ? std::string("a worker") : "rank " + ls.rank()) +
                       (ls.host().empty() ? "" : " on host " + ls.host()) +
                       (ls.exitcode().empty() ? "" : " (exit code " + ls.exitcode() + ")") + " as the first to fail");
    if (!ls.rank().empty() && !find_fact(facts, "rank")) facts.emplace_back("rank", ls.rank());
    if (!ls.host().empty() && !find_fact(facts, "host")) facts.emplace_back("host", ls.host());
  }
  if (d.exit_status.code) facts.emplace_back("exit_code", std::to_string(*d.exit_status.code));
  if (d.exit_status.signal) {
    facts.emplace_back("signal", std::to_string(d.exit_status.signal));
    facts.emplace_back("signame", signame(d.exit_status.signal));
  } else if (d.log_signal) {
    facts.emplace_back("signal", std::to_string(d.log_signal));
    facts.emplace_back("signame", signame(d.log_signal));
  }
  const auto tr = d.scan.loss.trend();
  if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few)
    d.v.shows.push_back(d.loss_summary());

  // 3. Implies / cannot decide / remedy, from the rule data.
  d.add_text(p.cls, facts);
  // Exit 0 from a job the scheduler ended (Slurm's 0:0 for TIMEOUT/CANCELLED) is no witness.
  const bool sched_zero = d.exit_status.code && *d.exit_status.code == 0 && !d.exit_status.zero;
  const int agree = disposition_primary || sched_zero ? 0 : exit_agreement(p.cls, d.exit_status);
  d.v.confidence = d.confidence(p, agree);
  {
    // Independent witnesses: the job's log and the node's kernel log agreeing.
    const bool ev_agrees = std::find(d.event_classes.begin(), d.event_classes.end(), p.cls) != d.event_classes.end();
    bool log_agrees = false;
    for (std::size_t i = 0; i < d.rules.rules.size() && !log_agrees; ++i)
      log_agrees = d.rules.rules[i].cls == p.cls && d.rules.rules[i].role == Role::cause && d.scan.hits[i].count > 0;
    if (ev_agrees && log_agrees) {
      d.v.confidence = std::min(0.98, d.v.confidence + 0.15);
      d.v.shows.push_back("the job's log and the node's kernel log agree on this");
    } else if (p.source == "kernel log") {
      d.v.confidence = std::min(0.95, d.v.confidence + 0.2);
    }
    if (!d.st.events_collected && (p.cls == "gpu_hardware" || p.cls == "signal_kill" || p.cls == "oom_killer" ||
                                  p.cls == "cuda_runtime" || p.cls == "segfault" || p.cls == "unknown"))
      d.v.cannot_decide.push_back("No kernel log was given for the run's window, so Xid / ECC / OOM-killer records could not be checked.");
  }

  // 4. Situational reasoning.
  if (disposition_primary) {
    if (d.disposition->source == "log" && !d.slurm.empty()) d.v.confidence = std::min(0.98, d.v.confidence + 0.15);
    if (p.source == "log") d.v.confidence = std::min(0.98, d.v.confidence + 0.1);
    for (const auto& [cls, c] : d.causes)
      d.finding(cls, "line " + std::to_string(c.line) + ": " + c.claim +
                       (c.line > p.line && p.line ? " (after the scheduler acted: most likely a consequence of the termination)"
                                                  : " (not specific enough to outrank the scheduler's action)"),
              0.3, c.support);
  } else if (d.disposition) {
    d.v.implies.push_back("The scheduler's action (" + d.disposition->cls + ") came after this failure and is not its cause.");
    d.finding(d.disposition->cls, d.disposition->claim + " (the disposition, not the cause)", 0.8,
            d.disposition->hit ? std::vector<const Hit*>{d.disposition->hit} : std::vector<const Hit*>{});
  }
  if (!disposition_primary) {
    for (const auto& [cls, c] : d.causes) {
      if (cls == p.cls) continue;
      std::string why;
      if (cls == "nccl" && p.priority > c.priority) {
        std::vector<std::string> ranks;
        for (const Hit* h : c.support) {
          const std::string r = d.where(*h);
          if (!r.empty() && std::find(ranks.begin(), ranks.end(), r) == ranks.end() && ranks.size() < 8) ranks.push_back(r);
        }
        std::string who;
        for (const auto& r : ranks) who += (who.empty() ? "" : "; ") + r;
        why = "collective errors/timeouts from line " + std::to_string(c.line) + " (" + std::to_string(c.count) + " lines" +
              (who.empty() ? "" : "; " + who) +
              "): most likely a consequence of the " + p.cls + " (peers wait for the failed rank, then time out)";
      }
      else if (p.cls == "gpu_hardware")
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a consequence of the GPU fault)";
      else if (c.priority <= kGenericMax)
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a generic symptom; the more specific cause wins)";
      else
        why = (c.line ? "line " + std::to_string(c.line) + ": " : std::string()) + c.claim;
      d.finding(cls, why, c.priority > kGenericMax ? 0.4 : 0.2, c.support);
    }
    if (p.cls == "cuda_oom" || p.cls == "gpu_hardware" || p.cls == "segfault" || p.cls == "oom_killer")
      if (d.causes.count("nccl"))
        d.v.implies.push_back("The NCCL errors on other ranks are consequences of this failure, not a separate problem.");
  }
  d.add_side_findings(p.cls);

  add_caveats(d, p, from_warning, agree);

  // Broader ids for a coarser label set: the other classes the deciding line also matched.
  if (p.hit)
    for (const auto& c : p.hit->line_classes)
      if (c != p.cls && std::find(d.v.broader.begin(), d.v.broader.end(), c) == d.v.broader.end()) d.v.broader.push_back(c);
  if (p.cls == "oom_killer" || p.cls == "ram_oom") {
    // Both are host-memory failures; a coarse scorer may name either.
  }
  d.v.facts = facts;
  if (d.scan.partial) d.v.cannot_decide.push_back(d.gap_text());
  if (d.scan.long_lines)
    d.v.cannot_decide.push_back(std::to_string(d.scan.long_lines) + " over-long line(s) were read only in their first 64 KiB.");
  return std::move(d.v);
}

}  // namespace gpualert::classify::detail
