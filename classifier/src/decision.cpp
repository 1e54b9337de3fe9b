// The decision: root cause over symptom, exit status and scheduler state as
// independent witnesses, healthy only on positive evidence.
#include "decision.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "gpualert/classifier/taxonomy.hpp"
#include "gpualert/common/text.hpp"

namespace gpualert::classify::detail {
namespace {

constexpr int kConcrete = 50;       // a cause at least this specific beats a scheduler disposition before it
constexpr int kNodeFailBeats = 60;  // node failure makes NCCL/peer errors consequences
constexpr int kGenericMax = 39;     // runtime_error / traceback / signal_kill and below

const char* signame(int sig) {
  switch (sig) {
    case 1: return "SIGHUP";
    case 2: return "SIGINT";
    case 3: return "SIGQUIT";
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 13: return "SIGPIPE";
    case 15: return "SIGTERM";
    default: return "signal";
  }
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string upper_word(const std::string& s) {
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '+') break;
    w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return w;
}

// A class together with the evidence behind it.
struct Cand {
  std::string cls;
  int priority = 0;
  std::uint64_t line = 0;   // 0 = not from a log line (exit status, scheduler state)
  const Hit* hit = nullptr;  // the deciding hit, if any
  std::string claim;         // what it shows
  std::string source;        // "log", "exit status", "scheduler state", "loss"
  std::vector<const Hit*> support;  // other hits of the same class
  std::uint64_t count = 0;
  int rules = 0;  // distinct rules of this class that matched
};

bool better(const Cand& a, const Cand& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  const auto la = a.line ? a.line : UINT64_MAX;
  const auto lb = b.line ? b.line : UINT64_MAX;
  return la < lb;  // same specificity: the earliest is the root cause
}

struct Exit {
  std::optional<int> code;
  int signal = 0;           // from the exit status
  bool shell_style = false;  // 128+N: a shell reporting a child's signal
  bool zero = false;
};

Exit read_exit(const RunStatus& st, const std::string& slurm) {
  Exit e;
  e.code = st.exit_code;
  if (e.code) {
    if (*e.code < 0) e.signal = -*e.code;
    else if (*e.code > 128 && *e.code < 128 + 65) { e.signal = *e.code - 128; e.shell_style = true; }
    e.zero = *e.code == 0;
  } else if (slurm == "COMPLETED") {
    e.zero = true;
  }
  return e;
}

// +1 the exit status supports CLS, 0 says nothing, -1 contradicts it.
int exit_agreement(const std::string& cls, const Exit& e) {
  if (!e.code) return 0;
  const int c = *e.code;
  if (cls == "healthy" || cls == "divergence") return c == 0 ? 1 : -1;
  if (cls == "nan_loss") return 0;
  if (cls == "oom_killer") return e.signal == 9 ? 1 : (c == 0 ? -1 : 0);
  if (cls == "segfault") return e.signal == 11 ? 1 : (c == 0 ? -1 : 0);
  if (cls == "signal_kill") return e.signal ? 1 : (c == 0 ? -1 : 0);
  if (cls == "timeout" || cls == "cancelled" || cls == "preempted" || cls == "node_fail") return 0;
  if (cls == "unknown") return c != 0 ? 1 : 0;
  // A crash: any non-zero status fits; SIGABRT fits the C++-level failures too.
  return c == 0 ? -1 : 1;
}

std::string exit_claim(const Exit& e, const RunStatus& st) {
  if (st.exec_failed) return "the command could not be started at all (the wrapper's exec failed)";
  if (!e.code) return "";
  if (*e.code < 0) return "the process was killed by signal " + std::to_string(e.signal) + " (" + signame(e.signal) + ")";
  if (e.shell_style)
    return "the process exited with status " + std::to_string(*e.code) + ", which a shell reports for a child killed by signal " +
           std::to_string(e.signal) + " (" + signame(e.signal) + ")";
  return "the process exited with status " + std::to_string(*e.code);
}

class Decider {
 public:
  Decider(const RuleSet& r, const ScanResult& s, const RunStatus& st) : rules_(r), scan_(s), st_(st) {
    if (st.slurm_state) slurm_ = upper_word(*st.slurm_state);
    exit_ = read_exit(st, slurm_);
  }
  Verdict run();

 private:
  const Rule& rule(const Hit& h) const { return rules_.rules[static_cast<std::size_t>(h.rule)]; }
  std::string says(const Hit& h) const;
  void collect();
  void add_cand(Cand c);
  void finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev);
  void set_class(const std::string& cls);
  void cite(const Hit& h, std::size_t max_shows);
  void add_text(const std::string& cls, const Facts& facts);
  double confidence(const Cand& c, int agree) const;
  Verdict healthy_or_not();

  const RuleSet& rules_;
  const ScanResult& scan_;
  const RunStatus& st_;
  std::string slurm_;
  Exit exit_;
  Verdict v_;

  std::map<std::string, Cand> causes_;       // non-recovered causes, best per class
  std::map<std::string, Cand> recovered_;    // causes that training ran past (exit 0)
  std::map<std::string, Cand> weak_;         // warnings / demoted exceptions / hints
  std::optional<Cand> disposition_;
  std::vector<const Hit*> signal_hits_;
  int log_signal_ = 0;
  std::uint64_t log_signal_line_ = 0;
  const Hit* log_signal_hit_ = nullptr;
};

std::string Decider::says(const Hit& h) const {
  const Rule& r = rule(h);
  if (r.says.empty()) return h.text;
  return fill_template(r.says, h.facts);
}

void Decider::add_cand(Cand c) {
  auto& slot = c.hit && (c.hit->on_warning || c.hit->demoted || rule(*c.hit).role == Role::hint) ? weak_ : causes_;
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

void Decider::collect() {
  // Slurm reports 0:0 for a job it timed out or cancelled: then "exit 0" is no sign of success.
  static const char* const kEnded[] = {"TIMEOUT", "CANCELLED", "PREEMPTED", "NODE_FAIL", "FAILED", "OUT_OF_MEMORY",
                                       "DEADLINE", "BOOT_FAIL", "REQUEUED"};
  for (const char* s : kEnded)
    if (slurm_ == s) exit_.zero = false;
  for (std::size_t i = 0; i < rules_.rules.size(); ++i)
    if (rules_.rules[i].role == Role::disposition)
      for (const Hit* h : scan_.hits[i].all())
        if (!h->on_warning) exit_.zero = false;

  for (std::size_t i = 0; i < rules_.rules.size(); ++i) {
    const Rule& r = rules_.rules[i];
    const RuleHits& rh = scan_.hits[i];
    if (rh.count == 0) continue;
    const auto hits = rh.all();
    if (r.role == Role::signal) {
      for (const Hit* h : hits) {
        signal_hits_.push_back(h);
        // The strongest signal evidence in the log: a crash signal beats SIGTERM/SIGINT.
        const auto rank = [](int s) { return s == 11 || s == 9 || s == 7 || s == 6 || s == 4 || s == 8 ? 2 : (s ? 1 : 0); };
        if (rank(h->signal) > rank(log_signal_)) {
          log_signal_ = h->signal;
          log_signal_line_ = h->line;
          log_signal_hit_ = h;
        }
      }
      continue;
    }
    if (r.role == Role::disposition) {
      for (const Hit* h : hits) {
        if (h->on_warning) continue;
        Cand c{r.cls, r.priority, h->line, h, says(*h), "log", {}, rh.count, 1};
        if (!disposition_ || better(c, *disposition_)) disposition_ = c;
      }
      continue;
    }
    if (r.role != Role::cause && r.role != Role::hint) continue;
    // Per rule, the earliest strong hit decides; the rest support it.
    std::vector<const Hit*> strong, weak, recovered;
    for (const Hit* h : hits) {
      if (h->on_warning || h->demoted || r.role == Role::hint) weak.push_back(h);
      else if (exit_.zero && scan_.last_progress_line > h->line) recovered.push_back(h);
      else strong.push_back(h);
    }
    auto mk = [&](const std::vector<const Hit*>& v) {
      Cand c{r.cls, r.priority, v.front()->line, v.front(), says(*v.front()), "log", v, rh.count, 1};
      return c;
    };
    if (!strong.empty()) add_cand(mk(strong));
    if (!weak.empty()) {
      Cand c = mk(weak);
      auto it = weak_.find(c.cls);
      if (it == weak_.end() || better(c, it->second)) weak_[c.cls] = c;
    }
    if (!recovered.empty()) {
      Cand c = mk(recovered);
      auto it = recovered_.find(c.cls);
      if (it == recovered_.end() || better(c, it->second)) recovered_[c.cls] = c;
    }
  }

  // The loss: non-finite at the end is a cause; non-finite earlier and then finite is not.
  const LossTracker& L = scan_.loss;
  const ClassText* nan_text = rules_.text_for("nan_loss");
  const int nan_prio = nan_text && nan_text->has_priority ? nan_text->priority : 70;
  if (L.last_nonfinite()) {
    Cand c{"nan_loss", nan_prio, L.nonfinite_streak_start(), nullptr,
           "the " + L.key() + " value became non-finite at line " + std::to_string(L.nonfinite_streak_start()) +
               " and stayed so to the last value printed (" + std::to_string(L.nonfinite()) + " non-finite of " +
               std::to_string(L.count()) + " values)",
           "loss", {}, L.nonfinite(), 1};
    add_cand(c);
  } else if (L.nonfinite() > 0) {
    Cand c{"nan_loss", nan_prio, L.first_nonfinite_line(), nullptr,
           std::to_string(L.nonfinite()) + " non-finite " + L.key() + " value(s) from line " +
               std::to_string(L.first_nonfinite_line()) + ", but later values were finite again",
           "loss", {}, L.nonfinite(), 1};
    recovered_["nan_loss"] = c;
  }

  // The scheduler's own record.
  auto sched = [&](const char* cls, const std::string& why) {
    Cand c{cls, 10, 0, nullptr, why, "scheduler state", {}, 1, 1};
    if (!disposition_) disposition_ = c;
    else if (disposition_->cls != cls && disposition_->source == "log") {
      // The log line and the state disagree: trust the state, keep the line as support.
      disposition_ = c;
    }
  };
  if (slurm_ == "TIMEOUT" || slurm_ == "DEADLINE") sched("timeout", "Slurm recorded the job as " + slurm_);
  else if (slurm_ == "PREEMPTED" || slurm_ == "REQUEUED") sched("preempted", "Slurm recorded the job as " + slurm_);
  else if (slurm_ == "NODE_FAIL" || slurm_ == "BOOT_FAIL") sched("node_fail", "Slurm recorded the job as " + slurm_);
  else if (slurm_ == "CANCELLED") sched("cancelled", "Slurm recorded the job as CANCELLED");
  else if (slurm_ == "OUT_OF_MEMORY" || slurm_ == "OOM")
    add_cand(Cand{"oom_killer", 90, 0, nullptr, "Slurm recorded the job as OUT_OF_MEMORY (the cgroup memory limit killed it)",
                  "scheduler state", {}, 1, 1});

  // The exit status and the log's signal lines as evidence of their own.
  int sig = exit_.signal;
  std::string sig_src = "exit status";
  std::uint64_t sig_line = 0;
  if (!sig && log_signal_ && !exit_.zero) {
    sig = log_signal_;
    sig_src = "log";
    sig_line = log_signal_line_;
  }
  const Hit* sig_hit = sig_src == "log" ? log_signal_hit_ : nullptr;
  if (sig == 11) {
    add_cand(Cand{"segfault", 65, sig_line, sig_hit,
                  sig_src == "log" ? "a process was reported killed by SIGSEGV (line " + std::to_string(sig_line) + ")"
                                   : "the exit status says the process died of SIGSEGV",
                  sig_src, {}, 1, 1});
  } else if (sig) {
    // A log line naming the signal ("worker killed by signal: Killed") is more specific
    // than the generic exception a launcher raises about it; the exit status alone is not.
    add_cand(Cand{"signal_kill", sig_src == "log" ? 35 : 20, sig_line, sig_hit,
                  sig_src == "log" ? std::string("a process was reported killed by ") + signame(sig) + " (line " +
                                         std::to_string(sig_line) + ")"
                                   : std::string("the exit status says the process died of ") + signame(sig),
                  sig_src, {}, 1, 1});
  }
  // The wrapper could not exec the command and the log lacks its line: still a startup failure.
  if (st_.exec_failed && causes_.empty()) {
    const bool eacces = exit_.code && *exit_.code == 126;
    add_cand(Cand{eacces ? "permission" : "missing_module", 80, 0, nullptr,
                  eacces ? "the command exists but could not be executed (exit 126)"
                         : "the command could not be found (exit 127 / exec failure)",
                  "exit status", {}, 1, 1});
  }
}

void Decider::finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev) {
  if (cls == v_.cls) return;
  // The same line read through a coarser class (RuntimeError -> runtime_error) is not a second finding.
  if (!ev.empty() && std::all_of(ev.begin(), ev.end(), [&](const Hit* h) {
        return std::any_of(v_.evidence.begin(), v_.evidence.end(), [&](const Citation& c) { return c.line == h->line; });
      }))
    return;
  for (const auto& f : v_.secondary)
    if (f.cls == cls) return;
  if (v_.secondary.size() >= 8) return;
  Finding f;
  f.cls = cls;
  f.summary = std::move(summary);
  f.confidence = conf;
  for (const Hit* h : ev) {
    if (f.evidence.size() >= 3) break;
    f.evidence.push_back(Citation{h->line, h->text, rule(*h).id});
  }
  v_.secondary.push_back(std::move(f));
}

void Decider::set_class(const std::string& cls) {
  const ClassInfo* ci = find_class(cls);
  v_.cls = cls;
  v_.family = ci ? std::string(ci->family) : "unknown";
  v_.attribution = ci ? std::string(ci->attribution) : "unknown";
}

void Decider::cite(const Hit& h, std::size_t max_shows) {
  for (const auto& c : v_.evidence)
    if (c.line == h.line) return;
  v_.evidence.push_back(Citation{h.line, h.text, rule(h).id});
  if (v_.shows.size() < max_shows) v_.shows.push_back("line " + std::to_string(h.line) + ": " + says(h));
}

void Decider::add_text(const std::string& cls, const Facts& facts) {
  const ClassText* t = rules_.text_for(cls);
  if (!t) return;
  for (const auto& s : t->implies) v_.implies.push_back(fill_template(s, facts));
  for (const auto& s : t->cannot_decide) v_.cannot_decide.push_back(fill_template(s, facts));
  v_.remedy = fill_template(t->remedy, facts);
}

double Decider::confidence(const Cand& c, int agree) const {
  double conf = c.source == "log" || c.source == "loss" ? (c.priority >= kConcrete ? 0.6 : 0.45) : 0.45;
  if (c.rules > 1 || c.count > 1) conf += 0.05;
  if (c.hit && !c.hit->line_classes.empty() && c.hit->line_classes.front() == c.cls && c.hit->facts.size() > 2) conf += 0.05;
  conf += agree > 0 ? 0.2 : (agree < 0 ? -0.25 : 0.0);
  if (!slurm_.empty()) {
    const bool failed_state = slurm_ == "FAILED" || slurm_ == "OUT_OF_MEMORY" || slurm_ == "NODE_FAIL";
    if (c.cls == "oom_killer" && slurm_ == "OUT_OF_MEMORY") conf += 0.1;
    else if (failed_state && c.cls != "healthy") conf += 0.05;
    else if (slurm_ == "COMPLETED" && (c.cls == "healthy" || c.cls == "divergence")) conf += 0.1;
  }
  return std::clamp(conf, 0.05, 0.98);
}

Verdict Decider::run() {
  v_.lines_read = scan_.lines;
  v_.bytes_read = scan_.bytes;
  v_.partial_scan = scan_.partial;
  v_.long_lines = scan_.long_lines;
  for (const auto& c : scan_.tail) v_.tail.push_back(c);
  collect();

  // 1. The best concrete cause; a scheduler disposition only if nothing concrete came first.
  std::optional<Cand> best;
  for (const auto& [cls, c] : causes_)
    if (!best || better(c, *best)) best = c;

  std::optional<Cand> primary;
  bool disposition_primary = false;
  if (disposition_) {
    const auto dline = disposition_->line ? disposition_->line : UINT64_MAX;
    const int need = disposition_->cls == "node_fail" ? kNodeFailBeats : kConcrete;
    std::optional<Cand> before;
    for (const auto& [cls, c] : causes_) {
      const bool prior = c.line ? c.line < dline : true;
      if ((prior && c.priority >= need) || c.priority >= 100) {
        if (!before || better(c, *before)) before = c;
      }
    }
    if (before) {
      primary = before;
    } else {
      primary = disposition_;
      disposition_primary = true;
    }
  } else if (best) {
    primary = best;
  }
  if (!primary) return healthy_or_not();

  const Cand& p = *primary;
  set_class(p.cls);

  // 2. Shows: the deciding lines, then the independent witnesses.
  Facts facts;
  if (p.hit) facts = p.hit->facts;
  for (const Hit* h : p.support)
    for (const auto& f : h->facts)
      if (!find_fact(facts, f.first)) facts.push_back(f);
  if (p.hit) {
    cite(*p.hit, 3);
    for (const Hit* h : p.support) cite(*h, 3);
  } else {
    v_.shows.push_back(p.line ? "line " + std::to_string(p.line) + ": " + p.claim : p.claim);
  }
  if (p.count > 3) v_.shows.push_back(std::to_string(p.count) + " lines in all point to " + p.cls);
  // Other rules of the same class that matched (e.g. the exception type and the message).
  if (p.source == "log") {
    for (std::size_t i = 0; i < rules_.rules.size(); ++i) {
      const Rule& r = rules_.rules[i];
      if (r.cls != p.cls || r.role != Role::cause || scan_.hits[i].count == 0) continue;
      for (const Hit* h : scan_.hits[i].all())
        if (!h->on_warning && !h->demoted && v_.evidence.size() < 6) cite(*h, 4);
    }
  }
  const std::string ec = exit_claim(exit_, st_);
  if (!ec.empty()) v_.shows.push_back(ec);
  if (!slurm_.empty()) v_.shows.push_back("Slurm state: " + *st_.slurm_state);
  if (exit_.code) facts.emplace_back("exit_code", std::to_string(*exit_.code));
  if (exit_.signal) {
    facts.emplace_back("signal", std::to_string(exit_.signal));
    facts.emplace_back("signame", signame(exit_.signal));
  } else if (log_signal_) {
    facts.emplace_back("signal", std::to_string(log_signal_));
    facts.emplace_back("signame", signame(log_signal_));
  }
  const auto tr = scan_.loss.trend();
  if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few)
    v_.shows.push_back("the " + scan_.loss.key() + " went from about " + fmt(tr.start) + " (line " +
                       std::to_string(tr.start_line) + ") to about " + fmt(tr.end) + " (line " + std::to_string(tr.end_line) +
                       ") over " + std::to_string(scan_.loss.count()) + " values");

  // 3. Implies / cannot decide / remedy, from the rule data.
  add_text(p.cls, facts);
  // Exit 0 from a job the scheduler ended (Slurm's 0:0 for TIMEOUT/CANCELLED) is no witness.
  const bool sched_zero = exit_.code && *exit_.code == 0 && !exit_.zero;
  const int agree = disposition_primary || sched_zero ? 0 : exit_agreement(p.cls, exit_);
  v_.confidence = confidence(p, agree);

  // 4. Situational reasoning.
  if (disposition_primary) {
    if (disposition_->source == "log" && !slurm_.empty()) v_.confidence = std::min(0.98, v_.confidence + 0.15);
    if (p.source == "log") v_.confidence = std::min(0.98, v_.confidence + 0.1);
    for (const auto& [cls, c] : causes_)
      finding(cls, "line " + std::to_string(c.line) + ": " + c.claim +
                       (c.line > p.line && p.line ? " (after the scheduler acted: most likely a consequence of the termination)"
                                                  : " (not specific enough to outrank the scheduler's action)"),
              0.3, c.support);
  } else if (disposition_) {
    v_.implies.push_back("The scheduler's action (" + disposition_->cls + ") came after this failure and is not its cause.");
    finding(disposition_->cls, disposition_->claim + " (the disposition, not the cause)", 0.8,
            disposition_->hit ? std::vector<const Hit*>{disposition_->hit} : std::vector<const Hit*>{});
  }
  if (!disposition_primary) {
    for (const auto& [cls, c] : causes_) {
      if (cls == p.cls) continue;
      std::string why;
      if (cls == "nccl" && p.priority > c.priority)
        why = "collective errors/timeouts from line " + std::to_string(c.line) + " (" + std::to_string(c.count) +
              " lines): most likely a consequence of the " + p.cls + " (peers wait for the failed rank, then time out)";
      else if (p.cls == "gpu_hardware")
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a consequence of the GPU fault)";
      else if (c.priority <= kGenericMax)
        why = "line " + std::to_string(c.line) + ": " + c.claim + " (a generic symptom; the more specific cause wins)";
      else
        why = (c.line ? "line " + std::to_string(c.line) + ": " : std::string()) + c.claim;
      finding(cls, why, c.priority > kGenericMax ? 0.4 : 0.2, c.support);
    }
    if (p.cls == "cuda_oom" || p.cls == "gpu_hardware" || p.cls == "segfault" || p.cls == "oom_killer")
      if (causes_.count("nccl"))
        v_.implies.push_back("The NCCL errors on other ranks are consequences of this failure, not a separate problem.");
  }
  for (const auto& [cls, c] : recovered_)
    finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " — but training continued afterwards (handled or retried)",
            0.2, c.support);
  for (const auto& [cls, c] : weak_)
    if (cls != p.cls && (cls == "gpu_hardware" || c.priority >= kConcrete))
      finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " (in a warning or a non-fatal exception)", 0.15,
              c.support);

  // Signal specifics: a bare SIGKILL says who died, not why.
  if (p.cls == "signal_kill") {
    const int s = exit_.signal ? exit_.signal : log_signal_;
    if (s == 9) {
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "SIGKILL with no OOM report in the log: it may have been the kernel's or the cgroup's OOM killer "
                              "(whose message goes to the kernel log, not the job's), an operator's kill -9, or the scheduler; "
                              "a bare 'Killed' line is only the shell saying the child got SIGKILL.");
      finding("oom_killer", "possible: SIGKILL is what the OOM killer sends, but no OOM line confirms it", 0.35, signal_hits_);
    } else if (s == 15) {
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "SIGTERM is what Slurm sends at the time limit, on scancel and on preemption; the scheduler's "
                              "record (sacct) tells which.");
    } else if (s == 6) {
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "SIGABRT comes from a native abort (a failed C++ check, an uncaught C++ exception, a "
                              "watchdog); the lines just before the end may name it.");
    }
  }
  if (p.cls == "oom_killer" && exit_.code && !exit_.signal && *exit_.code != 0)
    v_.implies.push_back("The job exited with a status rather than a signal: the OOM killer probably took a worker "
                         "(e.g. a dataloader process), and the main process failed afterwards.");

  // Exit 0 with a failure in the log.
  if (exit_.zero && agree < 0) {
    v_.cannot_decide.insert(v_.cannot_decide.begin(),
                            "The process exited 0 although the log ends in this failure: the error may have been caught and "
                            "handled, or the real exit status was hidden (a pipe such as '| tee' without pipefail, or a "
                            "wrapper script that ignores the status).");
  }
  if (!exit_.code && slurm_.empty())
    v_.cannot_decide.push_back("No exit status was given, so the log is the only witness.");

  // Broader ids for a coarser label set: the other classes the deciding line also matched.
  if (p.hit)
    for (const auto& c : p.hit->line_classes)
      if (c != p.cls && std::find(v_.broader.begin(), v_.broader.end(), c) == v_.broader.end()) v_.broader.push_back(c);
  if (p.cls == "oom_killer" || p.cls == "ram_oom") {
    // Both are host-memory failures; a coarse scorer may name either.
  }
  v_.facts = facts;
  if (scan_.partial)
    v_.cannot_decide.push_back("The log is larger than 1 GiB: only its head and its tail were read, so evidence in the middle "
                               "was not seen.");
  if (scan_.long_lines)
    v_.cannot_decide.push_back(std::to_string(scan_.long_lines) + " over-long line(s) were read only in their first 64 KiB.");
  return std::move(v_);
}

// No cause and no disposition: healthy needs positive evidence.
Verdict Decider::healthy_or_not() {
  const auto tr = scan_.loss.trend();
  const std::string ec = exit_claim(exit_, st_);
  if (!ec.empty()) v_.shows.push_back(ec);
  if (!slurm_.empty()) v_.shows.push_back("Slurm state: " + *st_.slurm_state);
  auto loss_claim = [&] {
    return "the " + scan_.loss.key() + " went from about " + fmt(tr.start) + " (line " + std::to_string(tr.start_line) +
           ") to about " + fmt(tr.end) + " (line " + std::to_string(tr.end_line) + ") over " +
           std::to_string(scan_.loss.count()) + " values";
  };
  Facts facts;
  if (exit_.code) facts.emplace_back("exit_code", std::to_string(*exit_.code));

  if (exit_.zero) {
    const bool flat_long = tr.trend == LossTracker::Trend::flat && scan_.loss.finite_count() >= 20 &&
                           std::fabs(tr.end - tr.start) < 0.01 * std::max(std::fabs(tr.start), 1e-9);
    if (tr.trend == LossTracker::Trend::up || flat_long) {
      set_class("divergence");
      v_.shows.push_back(loss_claim());
      v_.evidence.push_back(Citation{tr.start_line, "loss " + fmt(tr.start) + " (mean of the first values)", "progress.loss"});
      v_.evidence.push_back(Citation{tr.end_line, "loss " + fmt(tr.end) + " (mean of the last values)", "progress.loss"});
      add_text("divergence", facts);
      v_.confidence = tr.trend == LossTracker::Trend::up ? 0.7 : 0.5;
      if (tr.trend == LossTracker::Trend::up)
        v_.implies.insert(v_.implies.begin(), "The run completed, but the loss rose instead of falling.");
      else
        v_.implies.insert(v_.implies.begin(), "The run completed, but the loss never moved.");
      finding("healthy", "the process exited 0 with no error in the log", 0.3, {});
    } else {
      set_class("healthy");
      double conf = 0.55;
      if (tr.trend == LossTracker::Trend::down) {
        v_.shows.push_back(loss_claim());
        conf += 0.25;
      }
      if (slurm_ == "COMPLETED") conf += 0.1;
      v_.shows.push_back("no error, crash or scheduler action was found in " + std::to_string(scan_.lines) + " lines");
      add_text("healthy", facts);
      if (tr.trend == LossTracker::Trend::none)
        v_.cannot_decide.insert(v_.cannot_decide.begin(),
                                "No loss values were printed, so whether the model learned cannot be checked from the log.");
      else if (tr.trend == LossTracker::Trend::too_few)
        v_.cannot_decide.insert(v_.cannot_decide.begin(),
                                "Only " + std::to_string(scan_.loss.count()) +
                                    " loss value(s) were printed: too few to tell whether it learned (the run may be undertrained).");
      else if (tr.trend == LossTracker::Trend::flat)
        v_.cannot_decide.insert(v_.cannot_decide.begin(), "The loss barely moved (" + loss_claim() + "); it may not have learned.");
      v_.confidence = std::min(conf, 0.95);
    }
  } else {
    set_class("unknown");
    if (!exit_.code && slurm_.empty()) {
      v_.shows.push_back("no exit status was given and no rule matched in " + std::to_string(scan_.lines) + " lines");
      v_.confidence = 0.2;
    } else {
      v_.shows.push_back("no rule recognised a cause in " + std::to_string(scan_.lines) + " lines");
      v_.confidence = 0.3;
    }
    if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few) v_.shows.push_back(loss_claim());
    int n = 0;
    for (auto it = scan_.tail.rbegin(); it != scan_.tail.rend() && n < 3; ++it) {
      if (it->text.find_first_not_of(' ') == std::string::npos) continue;
      v_.evidence.insert(v_.evidence.begin(), Citation{it->line, it->text, "tail"});
      ++n;
    }
    if (n) v_.shows.push_back("the log ends at line " + std::to_string(scan_.lines) + " with the lines cited below");
    add_text("unknown", facts);
    if (!exit_.code && slurm_.empty())
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "Without an exit status it is not even known whether the job failed.");
    else
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "Why the process ended with this status: the log holds no recognised error, signal or scheduler message.");
  }
  for (const auto& [cls, c] : recovered_)
    finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " — but training continued afterwards (handled or retried)",
            0.2, c.support);
  for (const auto& [cls, c] : weak_)
    if (cls == "gpu_hardware" || c.priority >= kConcrete)
      finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " (in a warning or a non-fatal exception)", 0.15,
              c.support);
  for (const Hit* h : signal_hits_) {
    finding("signal_kill", "line " + std::to_string(h->line) + ": " + says(*h), 0.2, {h});
    break;
  }
  v_.facts = facts;
  if (scan_.partial)
    v_.cannot_decide.push_back("The log is larger than 1 GiB: only its head and its tail were read.");
  if (scan_.long_lines)
    v_.cannot_decide.push_back(std::to_string(scan_.long_lines) + " over-long line(s) were read only in their first 64 KiB.");
  if (v_.cannot_decide.empty()) v_.cannot_decide.push_back("Nothing beyond what the log and the exit status show.");
  return std::move(v_);
}

}  // namespace

Verdict decide(const RuleSet& rules, const ScanResult& scan, const RunStatus& status) {
  Decider d(rules, scan, status);
  return d.run();
}

}  // namespace gpualert::classify::detail
