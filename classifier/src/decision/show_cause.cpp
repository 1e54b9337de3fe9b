// What shows the primary cause: its deciding lines and the other lines of its class, the
// exit status and Slurm's state, the launcher's report of the first rank to fail, the
// loss; and the facts the class's wording is filled from.
#include "analyzers.hpp"
#include "wording.hpp"

namespace gpualert::classify::detail {

Facts show_cause(Decision& d, const Cand& p) {
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
  return facts;
}

}  // namespace gpualert::classify::detail
