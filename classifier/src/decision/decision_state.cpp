#include "decision_state.hpp"

#include <algorithm>

#include "gpualert/classifier/taxonomy.hpp"
#include "wording.hpp"

namespace gpualert::classify::detail {

Decision::Decision(const RuleSet& r, const ScanResult& s, const RunStatus& status) : rules(r), scan(s), st(status) {
  if (status.slurm_state) slurm = state_word(*status.slurm_state);
  exit_status = read_exit(status, slurm);
}

int Decision::rule_index(const std::string& id) const {
  for (std::size_t i = 0; i < rules.rules.size(); ++i)
    if (rules.rules[i].id == id) return static_cast<int>(i);
  return -1;
}

std::string Decision::gap_text() const {
  return "Only part of the log was read" + (scan.gap.empty() ? std::string(".") : ": " + scan.gap + ".") +
         " Evidence in the part not read was not seen.";
}

void Decision::note_scan_limits() {
  if (scan.partial) v.cannot_decide.push_back(gap_text());
  if (scan.long_lines)
    v.cannot_decide.push_back(std::to_string(scan.long_lines) + " over-long line(s) were read only in their first 64 KiB.");
}

std::string Decision::says(const Hit& h) const {
  const Rule& r = rule(h);
  if (r.says.empty()) return h.text;
  return fill_template(r.says, h.facts);
}

std::string Decision::where(const Hit& h) const {
  if (h.section >= 0 && static_cast<std::size_t>(h.section) < scan.sections.size()) {
    std::string w = scan.sections[static_cast<std::size_t>(h.section)];
    const std::string r = rank_of(h.text);
    return r.empty() ? w : w + ", rank " + r;
  }
  const std::string r = rank_of(h.text);
  return r.empty() ? "" : "rank " + r;
}

void Decision::add_cand(Cand c) {
  auto& slot = c.hit && (c.hit->on_warning || c.hit->demoted || rule(*c.hit).role == Role::hint) ? weak : causes;
  auto it = slot.find(c.cls);
  if (it == slot.end()) {
    slot.emplace(c.cls, std::move(c));
    return;
  }
  Cand& old = it->second;
  old.count += c.count;
  old.rules += c.rules;
  if (better(c, old)) {
    c.count = old.count;
    c.rules = old.rules;
    c.support.insert(c.support.end(), old.support.begin(), old.support.end());
    old = std::move(c);
  } else {
    old.support.insert(old.support.end(), c.support.begin(), c.support.end());
  }
}

void Decision::finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev) {
  if (cls == v.cls) return;
  // The same deciding line read through a coarser class (RuntimeError -> runtime_error)
  // is not a second finding.
  if (!ev.empty() && std::any_of(v.evidence.begin(), v.evidence.end(),
                                 [&](const Citation& c) { return c.line == ev.front()->line; }))
    return;
  for (const auto& f : v.secondary)
    if (f.cls == cls) return;
  if (v.secondary.size() >= 8) return;
  Finding f;
  f.cls = cls;
  f.summary = std::move(summary);
  f.confidence = conf;
  for (const Hit* h : ev) {
    if (f.evidence.size() >= 3) break;
    f.evidence.push_back(Citation{h->line, h->text, rule(*h).id});
  }
  v.secondary.push_back(std::move(f));
}

void Decision::add_side_findings(const std::string& primary) {
  for (const auto& [cls, c] : recovered)
    finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " — but training continued afterwards (handled or retried)",
            0.2, c.support);
  for (const auto& [cls, c] : weak) {
    if (cls == primary || (cls != "gpu_hardware" && c.priority < kConcrete)) continue;
    finding(cls, (c.line ? "line " + std::to_string(c.line) + ": " + c.claim + " (in a warning or a non-fatal exception)" : c.claim),
            0.15, c.support);
    for (auto& f : v.secondary)
      if (f.cls == cls)
        for (const auto& ci : c.cites)
          if (f.evidence.size() < 3) f.evidence.push_back(ci);
  }
}

void Decision::set_class(const std::string& cls) {
  const ClassInfo* ci = find_class(cls);
  v.cls = cls;
  v.family = ci ? std::string(ci->family) : "unknown";
  v.attribution = ci ? std::string(ci->attribution) : "unknown";
}

void Decision::cite(const Hit& h, std::size_t max_shows) {
  for (const auto& c : v.evidence)
    if (c.line == h.line) return;
  v.evidence.push_back(Citation{h.line, h.text, rule(h).id});
  const std::string w = where(h);
  if (v.shows.size() < max_shows)
    v.shows.push_back("line " + std::to_string(h.line) + (w.empty() ? "" : " (" + w + ")") + ": " + says(h));
}

void Decision::add_text(const std::string& cls, const Facts& facts) {
  const ClassText* t = rules.text_for(cls);
  if (!t) return;
  for (const auto& s : t->implies) v.implies.push_back(fill_template(s, facts));
  for (const auto& s : t->cannot_decide) v.cannot_decide.push_back(fill_template(s, facts));
  v.remedy = fill_template(t->remedy, facts);
}

double Decision::confidence(const Cand& c, int agree) const {
  double conf = c.source == "log" || c.source == "loss" ? (c.priority >= kConcrete ? 0.6 : 0.45) : 0.45;
  if (c.rules > 1 || c.count > 1) conf += 0.05;
  if (c.hit && !c.hit->line_classes.empty() && c.hit->line_classes.front() == c.cls && c.hit->facts.size() > 2) conf += 0.05;
  conf += agree > 0 ? 0.2 : (agree < 0 ? -0.25 : 0.0);
  if (!slurm.empty()) {
    const bool failed_state = slurm == "FAILED" || slurm == "OUT_OF_MEMORY" || slurm == "NODE_FAIL";
    if (c.cls == "oom_killer" && slurm == "OUT_OF_MEMORY") conf += 0.1;
    else if (failed_state && c.cls != "healthy") conf += 0.05;
    else if (slurm == "COMPLETED" && (c.cls == "healthy" || c.cls == "divergence")) conf += 0.1;
  }
  return std::clamp(conf, 0.05, 0.98);
}

std::string Decision::loss_summary() const {
  const LossTracker& L = scan.loss;
  const auto tr = L.trend();
  const std::string n = L.restarts() ? " over the " + std::to_string(L.run_count()) + " values of the last of " +
                                           std::to_string(L.restarts() + 1) + " training runs in the log (from line " +
                                           std::to_string(L.run_start_line()) + ")"
                                     : " over " + std::to_string(L.count()) + " values";
  if (tr.window <= 1)
    return "the " + L.key() + " went from " + fmt(tr.start) + " (line " + std::to_string(tr.start_line) + ") to " +
           fmt(tr.end) + " (line " + std::to_string(tr.end_line) + ")" + n;
  return "the " + L.key() + " went from a median of " + fmt(tr.start) + " (the first " + std::to_string(tr.window) +
         " values, lines " + std::to_string(tr.start_line) + "-" + std::to_string(tr.start_to) + ") to a median of " +
         fmt(tr.end) + " (the last " + std::to_string(tr.window) + ", lines " + std::to_string(tr.end_from) + "-" +
         std::to_string(tr.end_line) + ")" + n;
}

void Decision::cite_loss_ends() {
  const auto tr = scan.loss.trend();
  const int rule = rule_index("progress.loss");
  if (rule < 0) return;
  for (const Hit* h : scan.hits[static_cast<std::size_t>(rule)].all())
    if (h->line == tr.start_line || h->line == tr.end_line) v.evidence.push_back(Citation{h->line, h->text, "progress.loss"});
}

void Decision::show_status() {
  const std::string ec = exit_claim(exit_status, st);
  if (!ec.empty()) v.shows.push_back(ec);
  if (!slurm.empty()) v.shows.push_back("Slurm state: " + *st.slurm_state);
  if (st.elapsed_s && st.time_limit_s && *st.time_limit_s > 0) {
    v.shows.push_back("it ran " + duration_text(*st.elapsed_s) + " of its " + duration_text(*st.time_limit_s) + " time limit (" +
                       std::to_string(static_cast<int>(100 * *st.elapsed_s / *st.time_limit_s)) + "%)");
  }
}

void Decision::cite_marker(const Marker& m, const std::string& rule, const std::string& claim) {
  if (!m) {  // no line to cite: the claim still says what was read
    v.shows.push_back(claim);
    return;
  }
  for (const auto& c : v.evidence)
    if (c.line == m.line) return;
  v.evidence.push_back(Citation{m.line, m.text, rule});
  v.shows.push_back("line " + std::to_string(m.line) + ": " + claim);
}


}  // namespace gpualert::classify::detail
