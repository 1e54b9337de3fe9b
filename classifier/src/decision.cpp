// The decision: root cause over symptom, exit status and scheduler state as
// independent witnesses, healthy only on positive evidence.
#include "decision.hpp"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "gpualert/classifier/taxonomy.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/events/kernel_events.hpp"
#include "re2/re2.h"
#include "traceback_parser.hpp"

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

// The rank a launcher's line prefix names ("[rank3]: ", "3: ", "[default3]:"), or "".
std::string rank_of(const std::string& line) {
  const LineView lv = strip_rank_prefix(line);
  std::string digits;
  for (char c : lv.prefix) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
    else if (!digits.empty()) break;
  }
  return digits;
}

// Seconds as "4h00m" / "2m05s".
std::string duration_text(double seconds) {
  return human_duration(std::chrono::milliseconds(static_cast<long long>(seconds * 1000)));
}

// Slurm's state as one word: sacct's "CANCELLED by 1002" is CANCELLED; the slurmstepd
// banner's "CANCELLED DUE TO TIME LIMIT" (what a pasted log carries) is a TIMEOUT.
std::string state_word(const std::string& s) {
  std::string up;
  for (char c : s) up.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  static const std::pair<const char*, const char*> kDueTo[] = {
      {"DUE TO TIME LIMIT", "TIMEOUT"}, {"DUE TO PREEMPTION", "PREEMPTED"}, {"DUE TO NODE FAIL", "NODE_FAIL"},
      {"DUE TO JOB REQUEUE", "REQUEUED"}};
  for (const auto& [phrase, word] : kDueTo)
    if (up.find(phrase) != std::string::npos) return word;
  const auto end = up.find_first_of(" +");
  return up.substr(0, end);
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
  std::vector<Citation> cites;  // records from outside the log (kernel events)
  bool suspected = false;       // a reading by elimination, not a direct record
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
  if (!st.launch_failure.empty()) return "the command was never started: the launcher failed before it, so no exit status is its own";
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
    if (st.slurm_state) slurm_ = state_word(*st.slurm_state);
    exit_ = read_exit(st, slurm_);
  }
  Verdict run();

 private:
  std::string gap_text() const {
    return "Only part of the log was read" + (scan_.gap.empty() ? std::string(".") : ": " + scan_.gap + ".") +
           " Evidence in the part not read was not seen.";
  }
  const Rule& rule(const Hit& h) const { return rules_.rules[static_cast<std::size_t>(h.rule)]; }
  std::string says(const Hit& h) const;
  // Which task wrote the line: the Slurm helper's section ("srun #0, node n1, task 3")
  // or the launcher's rank prefix ("rank 3"); "" when the log does not say.
  std::string where(const Hit& h) const;
  void collect();
  void add_cand(Cand c);
  void finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev);
  // Recovered errors and weak (warning-level) causes, as secondary findings; PRIMARY is skipped.
  void add_side_findings(const std::string& primary);
  void set_class(const std::string& cls);
  void cite(const Hit& h, std::size_t max_shows);
  void add_text(const std::string& cls, const Facts& facts);
  double confidence(const Cand& c, int agree) const;
  Verdict healthy_or_not();
  bool done_but_bad(Facts& facts);
  bool ends_in_setup_chatter(std::vector<Citation>& last) const;
  const Citation* finish_marker_near_end() const;
  const Marker* announced_end_reached() const;
  // Healthy by the text alone (no exit status): FIN the program's end-of-run line, END
  // the line that shows the announced length reached; with neither, only a loss that fell.
  void healthy_from_text(const Citation* fin, const Marker* end, Facts& facts);
  // "the loss went from 2.2 (line 46) to 0.33 (line 1608) over N values", or with the
  // medians of the first and last values and the lines they span.
  std::string loss_summary() const;
  // The first and last loss lines as printed, as evidence.
  void cite_loss_ends();
  bool completed_by_log_ = false;  // a pasted log whose program says it finished
  void cite_marker(const Marker& m, const std::string& rule, const std::string& claim);
  // The exit status, Slurm's state and the time used against the limit, as shows.
  void show_status();

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
  std::vector<std::string> event_classes_;  // classes the kernel log independently supports
  std::uint64_t event_throttle_ = 0;
  void read_events();
};

std::string Decider::says(const Hit& h) const {
  const Rule& r = rule(h);
  if (r.says.empty()) return h.text;
  return fill_template(r.says, h.facts);
}

std::string Decider::where(const Hit& h) const {
  if (h.section >= 0 && static_cast<std::size_t>(h.section) < scan_.sections.size()) {
    std::string w = scan_.sections[static_cast<std::size_t>(h.section)];
    const std::string r = rank_of(h.text);
    return r.empty() ? w : w + ", rank " + r;
  }
  const std::string r = rank_of(h.text);
  return r.empty() ? "" : "rank " + r;
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
      else if ((exit_.zero || r.until_progress) && scan_.last_progress_line > h->line) recovered.push_back(h);
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
    // Without an exit status nothing says the run got past them: repeated non-finite
    // losses are then the best lead (a later finite series may be another run).
    if (!exit_.code && slurm_.empty() && L.nonfinite() >= 3) add_cand(c);
    else recovered_["nan_loss"] = c;
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

  read_events();
  const bool oom_seen = causes_.count("oom_killer") > 0;
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
  } else if (sig == 9 && !oom_seen && !(st_.events_collected && sig_src == "exit status")) {
    // SIGKILL with no memory record: on a compute node the kernel's or the cgroup's OOM
    // killer sends most of them, so that is the reading, marked as suspected. Only a
    // kernel log that was read and holds no OOM record argues for another sender.
    Cand c{"oom_killer", sig_src == "log" ? 35 : 20, sig_line, sig_hit,
           (sig_src == "log" ? "a process was reported killed by SIGKILL (line " + std::to_string(sig_line) + ")"
                             : std::string("the exit status says the process died of SIGKILL")) +
               ": suspected OOM kill (no memory record confirms it)",
           sig_src, {}, 1, 1};
    c.suspected = true;
    add_cand(c);
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
  // The launcher could not start the command: a path the user gave it (output file,
  // working directory) is not theirs to use, or does not exist.
  if (!st_.launch_failure.empty() && causes_.empty()) {
    const int e = st_.launch_errno;
    const char* cls = (e == EACCES || e == EPERM || e == EROFS) ? "permission"
                      : (e == ENOENT || e == ENOTDIR)           ? "file_not_found"
                                                                : nullptr;
    if (cls) add_cand(Cand{cls, 80, 0, nullptr, st_.launch_failure, "launcher", {}, 1, 1});
  }
}

// Kernel / driver records of the node (RunStatus::events): Xid, ECC, fallen off the
// bus, OOM-killer. An independent witness next to the job's own output.
void Decider::read_events() {
  namespace ev = gpualert::events;
  const auto in_window = [&](const KernelEvent& k) {
    if (!k.time_us || !st_.start_time_us) return true;  // no time: cannot call it pre-existing
    return k.time_us >= *st_.start_time_us - 5'000'000 &&
           (!st_.end_time_us || k.time_us <= *st_.end_time_us + 60'000'000);
  };
  const auto cite = [](const KernelEvent& k, const std::string& rule) {
    return Citation{0, "[" + k.source + "] " + one_line(k.text, 300), rule};
  };
  std::optional<Cand> hw, oom;
  int oom_rank = -1;
  std::vector<Citation> pre;  // pre-existing hardware records
  for (const auto& k : st_.events) {
    const auto e = ev::parse_event_text(k.text);
    if (!e) continue;
    const bool during = in_window(k);
    if (e->kind == ev::Kind::xid || e->kind == ev::Kind::ecc || e->kind == ev::Kind::row_remap ||
        e->kind == ev::Kind::fallen_off_bus) {
      std::string claim;
      bool hardware = true;
      if (e->kind == ev::Kind::xid) {
        const int n = e->xid.value_or(-1);
        const auto& info = ev::xid_info(n);
        hardware = info.blame == ev::XidBlame::hardware || info.blame == ev::XidBlame::driver;
        claim = "the kernel log records NVIDIA Xid " + std::to_string(n) + " (" + info.meaning + "; NVIDIA's Xid catalogue: " +
                ev::to_string(info.blame) + ")";
        if (!hardware) {
          Cand c{"gpu_hardware", 30, 0, nullptr, claim + " - usually the application's own fault, not the GPU", "kernel log", {}, 1, 1};
          c.cites.push_back(cite(k, "events.xid_app"));
          if (!weak_.count("gpu_hardware")) weak_["gpu_hardware"] = c;
          continue;
        }
      } else {
        claim = e->kind == ev::Kind::fallen_off_bus ? "the kernel log says the GPU fell off the bus"
                : e->kind == ev::Kind::ecc         ? "the kernel log records an uncorrectable ECC error"
                                                   : "the kernel log records a row-remapping failure";
      }
      if (!during) {
        pre.push_back(cite(k, "events.preexisting"));
        continue;
      }
      if (!hw) {
        hw = Cand{"gpu_hardware", 100, 0, nullptr, claim + " during the run", "kernel log", {}, 0, 1};
      }
      hw->count++;
      if (hw->cites.size() < 3) hw->cites.push_back(cite(k, "events.gpu"));
    } else if (e->kind == ev::Kind::oom_kill && during) {
      // Whose process died: the job's own pid, a cgroup that holds only the job, or, when
      // the run itself ended by SIGKILL, a process of the same user (a child the wrapper
      // never saw, e.g. python under a batch shell).
      const bool by_pid = e->pid && std::find(st_.pids.begin(), st_.pids.end(), *e->pid) != st_.pids.end();
      const bool by_cgroup = !e->cgroup.empty() && std::any_of(st_.cgroup_marks.begin(), st_.cgroup_marks.end(), [&](const std::string& m) {
        return !m.empty() && (e->cgroup + "/").find(m + "/") != std::string::npos;
      });
      const bool killed9 = exit_.signal == 9 || log_signal_ == 9;
      const bool same_user = killed9 && e->uid && st_.uid && *e->uid == *st_.uid;
      if (!by_pid && !by_cgroup && !same_user && !(st_.pids.empty() && killed9)) continue;
      // The strongest tie among the records of one kill ("invoked oom-killer" names no pid)
      // decides the claim.
      const int rank = by_pid ? 3 : by_cgroup ? 2 : e->uid ? 1 : 0;
      std::string what = by_pid      ? "the kernel log records the OOM killer killing the job's process (pid " + std::to_string(*e->pid) + ")"
                         : by_cgroup ? "the kernel log records the OOM killer killing a process in the job's cgroup (" + e->cgroup + ")"
                         : e->uid    ? "the kernel log records an OOM kill of a process of the job's user (uid " + std::to_string(*e->uid) +
                                        ") during the run, matching the SIGKILL the run reports"
                                     : "the kernel log records an OOM kill on the node during the run, matching the SIGKILL the run reports";
      if (!oom) oom = Cand{"oom_killer", 80, 0, nullptr, what, "kernel log", {}, 0, 1};
      if (rank > oom_rank) {
        oom_rank = rank;
        oom->claim = what;
        oom->priority = rank >= 2 ? 90 : 80;
      }
      oom->count++;
      if (oom->cites.size() < 3) oom->cites.push_back(cite(k, "events.oom"));
    } else if (e->kind == ev::Kind::throttle && during) {
      ++event_throttle_;
    }
  }
  if (hw) {
    event_classes_.push_back("gpu_hardware");
    add_cand(*hw);
  }
  if (oom) {
    event_classes_.push_back("oom_killer");
    add_cand(*oom);
  }
  if (!pre.empty() && !hw) {
    Cand c{"gpu_hardware", 100, 0, nullptr,
           "flag this GPU: the kernel log has hardware error records from before the run started (a pre-existing "
           "condition, not the cause of this run's end)",
           "kernel log", {}, pre.size(), 1};
    c.cites = pre;
    weak_["gpu_hardware"] = c;
  }
}

void Decider::finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev) {
  if (cls == v_.cls) return;
  // The same deciding line read through a coarser class (RuntimeError -> runtime_error)
  // is not a second finding.
  if (!ev.empty() && std::any_of(v_.evidence.begin(), v_.evidence.end(),
                                 [&](const Citation& c) { return c.line == ev.front()->line; }))
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

void Decider::add_side_findings(const std::string& primary) {
  for (const auto& [cls, c] : recovered_)
    finding(cls, "line " + std::to_string(c.line) + ": " + c.claim + " — but training continued afterwards (handled or retried)",
            0.2, c.support);
  for (const auto& [cls, c] : weak_) {
    if (cls == primary || (cls != "gpu_hardware" && c.priority < kConcrete)) continue;
    finding(cls, (c.line ? "line " + std::to_string(c.line) + ": " + c.claim + " (in a warning or a non-fatal exception)" : c.claim),
            0.15, c.support);
    for (auto& f : v_.secondary)
      if (f.cls == cls)
        for (const auto& ci : c.cites)
          if (f.evidence.size() < 3) f.evidence.push_back(ci);
  }
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
  const std::string w = where(h);
  if (v_.shows.size() < max_shows)
    v_.shows.push_back("line " + std::to_string(h.line) + (w.empty() ? "" : " (" + w + ")") + ": " + says(h));
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
  // Hang vs timeout: output that stopped long before the end of a run the scheduler
  // (or someone) ended is a hang; the disposition becomes a secondary finding.
  std::optional<Cand> ended_by;
  {
    const ProgressTracker& P = scan_.progress;
    std::optional<double> silent;
    std::string how;
    if (st_.seconds_silent_before_end) {
      silent = *st_.seconds_silent_before_end;
      how = "the capture timeline shows no output for the last " + fmt(*silent) + " s of the run";
    } else if (P.progress_bound_ts() && P.last_ts > P.progress_bound_ts() && P.last_ts_line > P.last_progress_line) {
      silent = static_cast<double>(P.last_ts - P.progress_bound_ts());
      how = "no progress was printed after line " + std::to_string(P.last_progress_line) + " for at least " + duration_text(*silent) +
            " before the last time stamp in the log (line " + std::to_string(P.last_ts_line) + ")";
    } else if (!P.progress_lines && P.last_output_ts && P.last_ts > P.last_output_ts && P.last_ts_line > P.last_output_ts_line) {
      // No training progress at all: the job's own last stamped line vs the scheduler's.
      silent = static_cast<double>(P.last_ts - P.last_output_ts);
      how = "the job never printed training progress, and its last time-stamped line (line " +
            std::to_string(P.last_output_ts_line) + ") came " + duration_text(*silent) + " before the scheduler's (line " +
            std::to_string(P.last_ts_line) + ")";
    }
    const double step = P.step_time.count() ? P.step_time.late() : 0;
    const double need = std::max(st_.hang_after_s, 20.0 * step);
    const int sig = exit_.signal ? exit_.signal : log_signal_;
    const bool killed = (primary && primary->cls == "signal_kill" && (sig == 15 || sig == 9 || sig == 2)) ||
                        (primary && primary->suspected) ||
                        (primary && primary->cls == "unknown") || (exit_.code && *exit_.code == 124 && !primary);
    const bool ended = disposition_primary && primary &&
                       (primary->cls == "timeout" || primary->cls == "cancelled" || primary->cls == "preempted");
    if (silent && *silent >= need && (ended || killed || (!primary && !exit_.zero))) {
      if (primary) ended_by = primary;
      Cand h{"hang", 60, P.last_progress_line, nullptr, how + ": the job stopped making progress long before it was ended",
             "log", {}, 1, 1};
      primary = h;
      disposition_primary = false;
    }
  }
  // A failed run with nothing stronger: a warning that names a concrete cause (NCCL
  // prints its CUDA failures as "NCCL WARN") is the best lead, said to be one.
  bool from_warning = false;
  if (!primary && exit_.code && *exit_.code != 0) {
    for (const auto& [cls, c] : weak_)
      if (c.priority >= kConcrete && c.hit && c.hit->on_warning && !c.hit->demoted && (!primary || better(c, *primary)))
        primary = c;
    from_warning = primary.has_value();
  }
  if (!primary) return healthy_or_not();

  const Cand& p = *primary;
  if (ended_by) {
    v_.implies.push_back("The " + ended_by->cls + " only ended a job that had already stopped progressing; it is not the cause.");
    finding(ended_by->cls, ended_by->claim + " (how the hung job ended, not why)", 0.7,
            ended_by->hit ? std::vector<const Hit*>{ended_by->hit} : std::vector<const Hit*>{});
  }
  set_class(p.cls);

  // 2. Shows: the deciding lines, then the independent witnesses.
  Facts facts;
  if (p.hit) facts = p.hit->facts;
  for (const Hit* h : p.support)
    for (const auto& f : h->facts)
      if (!find_fact(facts, f.first)) facts.push_back(f);
  if (p.hit) {
    const std::string rank = rank_of(p.hit->text);
    if (!rank.empty() && !find_fact(facts, "rank")) facts.emplace_back("rank", rank);
    if (p.hit->section >= 0 && static_cast<std::size_t>(p.hit->section) < scan_.sections.size()) {
      // "srun #0, node n1, task 3": the node matters to an admin (drain it?), the task to the user.
      const std::string& sec = scan_.sections[static_cast<std::size_t>(p.hit->section)];
      const auto node = sec.find("node ");
      if (node != std::string::npos && !find_fact(facts, "node"))
        facts.emplace_back("node", sec.substr(node + 5, sec.find(',', node) == std::string::npos ? std::string::npos
                                                                                                   : sec.find(',', node) - node - 5));
      const auto task = sec.rfind("task ");
      if (task != std::string::npos && !find_fact(facts, "task")) facts.emplace_back("task", sec.substr(task + 5));
    }
    cite(*p.hit, 3);
    for (const Hit* h : p.support) cite(*h, 3);
  } else {
    v_.shows.push_back(p.line ? "line " + std::to_string(p.line) + ": " + p.claim : p.claim);
  }
  for (const auto& c : p.cites) v_.evidence.push_back(c);
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
  show_status();
  if (const LauncherSummary& ls = scan_.launcher; ls.seen() && (!ls.rank().empty() || !ls.host().empty())) {
    v_.shows.push_back("line " + std::to_string(ls.line()) + ": the launcher's failure report names " +
                       (ls.rank().empty() ? std::string("a worker") : "rank " + ls.rank()) +
                       (ls.host().empty() ? "" : " on host " + ls.host()) +
                       (ls.exitcode().empty() ? "" : " (exit code " + ls.exitcode() + ")") + " as the first to fail");
    if (!ls.rank().empty() && !find_fact(facts, "rank")) facts.emplace_back("rank", ls.rank());
    if (!ls.host().empty() && !find_fact(facts, "host")) facts.emplace_back("host", ls.host());
  }
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
    v_.shows.push_back(loss_summary());

  // 3. Implies / cannot decide / remedy, from the rule data.
  add_text(p.cls, facts);
  // Exit 0 from a job the scheduler ended (Slurm's 0:0 for TIMEOUT/CANCELLED) is no witness.
  const bool sched_zero = exit_.code && *exit_.code == 0 && !exit_.zero;
  const int agree = disposition_primary || sched_zero ? 0 : exit_agreement(p.cls, exit_);
  v_.confidence = confidence(p, agree);
  {
    // Independent witnesses: the job's log and the node's kernel log agreeing.
    const bool ev_agrees = std::find(event_classes_.begin(), event_classes_.end(), p.cls) != event_classes_.end();
    bool log_agrees = false;
    for (std::size_t i = 0; i < rules_.rules.size() && !log_agrees; ++i)
      log_agrees = rules_.rules[i].cls == p.cls && rules_.rules[i].role == Role::cause && scan_.hits[i].count > 0;
    if (ev_agrees && log_agrees) {
      v_.confidence = std::min(0.98, v_.confidence + 0.15);
      v_.shows.push_back("the job's log and the node's kernel log agree on this");
    } else if (p.source == "kernel log") {
      v_.confidence = std::min(0.95, v_.confidence + 0.2);
    }
    if (!st_.events_collected && (p.cls == "gpu_hardware" || p.cls == "signal_kill" || p.cls == "oom_killer" ||
                                  p.cls == "cuda_runtime" || p.cls == "segfault" || p.cls == "unknown"))
      v_.cannot_decide.push_back("No kernel log was given for the run's window, so Xid / ECC / OOM-killer records could not be checked.");
  }

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
      if (cls == "nccl" && p.priority > c.priority) {
        std::vector<std::string> ranks;
        for (const Hit* h : c.support) {
          const std::string r = where(*h);
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
      finding(cls, why, c.priority > kGenericMax ? 0.4 : 0.2, c.support);
    }
    if (p.cls == "cuda_oom" || p.cls == "gpu_hardware" || p.cls == "segfault" || p.cls == "oom_killer")
      if (causes_.count("nccl"))
        v_.implies.push_back("The NCCL errors on other ranks are consequences of this failure, not a separate problem.");
  }
  add_side_findings(p.cls);

  if (from_warning) {
    v_.confidence = std::min(v_.confidence, 0.45);
    v_.cannot_decide.insert(v_.cannot_decide.begin(),
                            "The deciding line is a warning, not an error: nothing stronger in the log explains the failure, "
                            "so it is the best lead, not a certainty.");
  }
  // Signal specifics: a bare SIGKILL says who died, not why.
  if (p.suspected) {
    v_.confidence = std::min(v_.confidence, 0.4);
    v_.shows.push_back("no line of the log, no kernel record and no scheduler state names the memory limit");
    v_.cannot_decide.insert(v_.cannot_decide.begin(),
                            "Whether it really was the OOM killer: SIGKILL also comes from an operator's kill -9, from the "
                            "scheduler cleaning up, or from a launcher killing the rest of a failed group. The kernel log "
                            "(dmesg / journal: 'Out of memory: Killed process') or sacct's MaxRSS against the memory "
                            "request would settle it.");
    finding("signal_kill", "the plain reading: the process died of SIGKILL from an unknown sender", 0.35, signal_hits_);
  }
  if (p.cls == "signal_kill") {
    const int s = exit_.signal ? exit_.signal : log_signal_;
    if (s == 9) {
      // The kernel log answered the class's generic "who sent it" for the OOM killer:
      // say what it showed instead of repeating the open question.
      if (const ClassText* t = rules_.text_for("signal_kill"))
        for (const auto& generic : t->cannot_decide)
          std::erase(v_.cannot_decide, generic);
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "Who sent the SIGKILL: the node's kernel log was read and holds no OOM-killer record for the "
                              "run, which points to an operator's kill -9, the scheduler or a launcher rather than memory.");
      finding("oom_killer", "unlikely: SIGKILL is what the OOM killer sends, but the kernel log has no OOM record for the run",
              0.15, signal_hits_);
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
  if (scan_.partial) v_.cannot_decide.push_back(gap_text());
  if (scan_.long_lines)
    v_.cannot_decide.push_back(std::to_string(scan_.long_lines) + " over-long line(s) were read only in their first 64 KiB.");
  return std::move(v_);
}

std::string Decider::loss_summary() const {
  const LossTracker& L = scan_.loss;
  const auto tr = L.trend();
  const std::string n = " over " + std::to_string(L.count()) + " values";
  if (tr.window <= 1)
    return "the " + L.key() + " went from " + fmt(tr.start) + " (line " + std::to_string(tr.start_line) + ") to " +
           fmt(tr.end) + " (line " + std::to_string(tr.end_line) + ")" + n;
  return "the " + L.key() + " went from a median of " + fmt(tr.start) + " (the first " + std::to_string(tr.window) +
         " values, lines " + std::to_string(tr.start_line) + "-" + std::to_string(tr.start_to) + ") to a median of " +
         fmt(tr.end) + " (the last " + std::to_string(tr.window) + ", lines " + std::to_string(tr.end_from) + "-" +
         std::to_string(tr.end_line) + ")" + n;
}

void Decider::cite_loss_ends() {
  const auto tr = scan_.loss.trend();
  for (std::size_t i = 0; i < rules_.rules.size(); ++i) {
    if (rules_.rules[i].id != "progress.loss") continue;
    for (const Hit* h : scan_.hits[i].all())
      if (h->line == tr.start_line || h->line == tr.end_line) v_.evidence.push_back(Citation{h->line, h->text, "progress.loss"});
  }
}

void Decider::show_status() {
  const std::string ec = exit_claim(exit_, st_);
  if (!ec.empty()) v_.shows.push_back(ec);
  if (!slurm_.empty()) v_.shows.push_back("Slurm state: " + *st_.slurm_state);
  if (st_.elapsed_s && st_.time_limit_s && *st_.time_limit_s > 0) {
    v_.shows.push_back("it ran " + duration_text(*st_.elapsed_s) + " of its " + duration_text(*st_.time_limit_s) + " time limit (" +
                       std::to_string(static_cast<int>(100 * *st_.elapsed_s / *st_.time_limit_s)) + "%)");
  }
}

void Decider::cite_marker(const Marker& m, const std::string& rule, const std::string& claim) {
  if (!m) return;
  for (const auto& c : v_.evidence)
    if (c.line == m.line) return;
  v_.evidence.push_back(Citation{m.line, m.text, rule});
  v_.shows.push_back("line " + std::to_string(m.line) + ": " + claim);
}

// Exit 0 and no fault: did the run do what a training run should? Returns true when
// a "done but bad" class (correctness or throughput) is the verdict.
bool Decider::done_but_bad(Facts& facts) {
  const ProgressTracker& P = scan_.progress;
  const LossTracker& L = scan_.loss;
  const auto tr = L.trend();
  const bool has_trend = tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few;
  const auto decide = [&](const char* cls, double conf, const std::string& first_implication) {
    set_class(cls);
    if (has_trend) v_.shows.push_back(loss_summary());
    add_text(cls, facts);
    if (!first_implication.empty()) v_.implies.insert(v_.implies.begin(), first_implication);
    if (slurm_ == "COMPLETED") conf += 0.05;
    v_.confidence = std::clamp(conf, 0.05, 0.95);
    if (!st_.events_collected && (std::string(cls) == "straggler" || std::string(cls) == "thermal_throttle" ||
                                  std::string(cls) == "healthy_slow"))
      v_.cannot_decide.push_back("No kernel log / GPU telemetry was given: node-side causes (throttling, Xid) are unconfirmed.");
    return true;
  };
  // How many optimizer steps were done.
  std::uint64_t steps = P.have_step ? P.max_step : 0;
  if (!P.have_step) steps = P.total_steps ? P.total_steps : L.count();
  if (steps) facts.emplace_back("steps", std::to_string(steps));

  // Without an exit status (a pasted log, a fragment) only a loss that clearly went
  // wrong is a verdict: few steps or slow steps may just be where the paste ends.
  const bool loss_only = !exit_.zero && !completed_by_log_;
  // 1. Resume requested, nothing loaded, and training visibly started over.
  if (!loss_only && (P.resume_request || !st_.resume_expected.empty()) && !P.load) {
    const auto head = L.head();
    const bool loss_restarted = has_trend && tr.trend == LossTracker::Trend::down && !head.empty() &&
                                head.front().value >= 2.0 * std::max(tr.end, 1e-12);
    const bool step_restarted = P.have_step && P.first_step <= std::max<std::uint64_t>(10, P.max_step / 50);
    if (P.fresh_start || loss_restarted) {
      cite_marker(P.resume_request, "progress.resume_request", "a resume from a checkpoint was requested");
      if (!st_.resume_expected.empty())
        v_.shows.push_back("the scheduler's record implies a continuation: " + st_.resume_expected);
      if (P.fresh_start) cite_marker(P.fresh_start, "progress.fresh_start", "the job says it starts without a checkpoint");
      v_.shows.push_back("no line says a checkpoint was loaded (no 'loading checkpoint' / 'Restoring states' / "
                         "'Continuing training from checkpoint' marker)");
      if (step_restarted) v_.shows.push_back("the step counter starts at " + std::to_string(P.first_step));
      if (loss_restarted)
        v_.shows.push_back("the first loss value (" + fmt(head.front().value) + ", line " + std::to_string(head.front().line) +
                           ") is a fresh model's: it then fell to about " + fmt(tr.end));
      const int witnesses = (P.fresh_start ? 1 : 0) + (loss_restarted ? 1 : 0) + (step_restarted ? 1 : 0) +
                            (P.resume_request && !st_.resume_expected.empty() ? 1 : 0);
      return decide("resume_from_scratch", 0.45 + 0.12 * witnesses, "");
    }
  }
  // 2. A handful of steps.
  // Only counted steps count: frameworks log the loss every N steps, so a few loss
  // lines alone do not prove a few steps.
  // A run planned to be that short is no better: ten steps or fewer, all done.
  const bool handful = steps <= 3 || (P.total_steps && P.total_steps <= 10 && steps <= P.total_steps);
  if (!loss_only && steps >= 1 && handful && (P.have_step || P.total_steps)) {
    v_.shows.push_back("training stopped after " + std::to_string(steps) + " step(s)" +
                       (P.total_steps ? " (the run planned " + std::to_string(P.total_steps) + ")" : ""));
    if (L.count()) v_.shows.push_back(std::to_string(L.count()) + " loss value(s) were printed");
    return decide("undertrained", P.have_step && P.total_steps ? 0.75 : 0.65, "");
  }
  // 3. The loss did not go down.
  const bool flat_long = tr.trend == LossTracker::Trend::flat && L.finite_count() >= 20 &&
                         std::fabs(tr.end - tr.start) < 0.01 * std::max(std::fabs(tr.start), 1e-9);
  const bool grad_zero = P.grad_norm.count() >= 3 && P.grad_norm.max() <= 1e-8;
  const bool lr_zero = P.lr.count() >= 3 && std::fabs(P.lr.max()) <= 1e-12 && std::fabs(P.lr.min()) <= 1e-12;
  const auto head = L.head();
  const auto tail = L.tail();
  double peak = 0;
  for (const auto& x : tail) peak = std::max(peak, x.value);
  // Finite but absurd: no usual training loss ends above a million.
  double loss_max = 0;
  for (const auto& x : L.head()) loss_max = std::max(loss_max, std::fabs(x.value));
  for (const auto& x : L.tail()) loss_max = std::max(loss_max, std::fabs(x.value));
  const bool exploded = has_trend && (std::fabs(tr.end) >= 1e6 || (loss_max >= 1e6 && std::fabs(tr.end) >= 1e3));
  // Never really moved: ten or more values and less than an 8% drop end to end.
  const double rel = has_trend ? (tr.end - tr.start) / std::max(std::fabs(tr.start), 1e-9) : 0;
  const bool stuck = has_trend && L.finite_count() >= 10 && rel > -0.08;
  // Pinned at chance (ln K), or frozen: the same value to every printed digit five times
  // running, or three times when printed with four or more digits (coarse prints such as
  // "0.83" repeat by chance). A progress bar redraws one step's value on every refresh,
  // so it needs the stricter count; near-zero losses of a converged model are excluded.
  const std::optional<int> chance_k = L.pinned_at_chance();
  const auto last = L.last();
  bool progress_bar = false;
  for (const auto& t : scan_.tail)
    if (last && t.line == last->line)
      progress_bar = t.text.find("it/s") != std::string::npos || t.text.find("s/it") != std::string::npos;
  const std::size_t repeats = L.exact_repeats();
  const bool frozen = last && last->value > 0.01 &&
                      (repeats >= 5 || (repeats >= 3 && !progress_bar && printed_digits(last->value) >= 4));
  const auto diverged = [&] {
    cite_loss_ends();
    std::string why = tr.trend == LossTracker::Trend::up ? "The run completed, but the loss rose instead of falling."
                                                         : "The run completed, but the loss never moved.";
    if (grad_zero) {
      v_.shows.push_back("the gradient norm was 0 in all " + std::to_string(P.grad_norm.count()) +
                         " values printed (from line " + std::to_string(P.grad_norm.first_line()) + ")");
      why = "The run completed, but no gradient reached the weights (grad norm 0): frozen parameters or a detached loss.";
    }
    if (lr_zero) {
      v_.shows.push_back("the learning rate was 0 in all " + std::to_string(P.lr.count()) + " values printed");
      why = "The run completed, but the learning rate was 0: the weights never changed.";
    }
    if (chance_k) {
      v_.shows.push_back("the last 8 loss values are all " + fmt(last->value) + " = ln " +
                         std::to_string(*chance_k) + " (to line " + std::to_string(last->line) +
                         "): the loss of a uniform guess over " + std::to_string(*chance_k) + " classes");
      why = "The run completed, but the loss is pinned at chance level (ln " + std::to_string(*chance_k) +
            "): the model outputs the same uniform prediction and learns nothing (dead activations, a too-high learning "
            "rate that saturated the output, or labels that do not match the output layer).";
    }
    if (frozen && !chance_k) {
      v_.shows.push_back("the last " + std::to_string(repeats) + " loss values are all exactly " + fmt(last->value) +
                         " (to line " + std::to_string(last->line) + "): the loss is frozen");
      why = "The run completed, but its loss is frozen at one value: the weights stopped changing (dead activations, "
            "a saturated output, a learning rate or optimizer that no longer updates them).";
    }
    if (exploded) why = "The run completed, but the loss exploded to an absurd (finite) value.";
    else if (stuck && tr.trend != LossTracker::Trend::up)
      why = "The run completed, but the loss stayed on a plateau near its starting value: the model did not learn.";
    double conf = tr.trend == LossTracker::Trend::up || exploded ? 0.7 : 0.55;
    if (grad_zero || lr_zero) conf += 0.15;
    if (loss_only) {
      const std::string lead = "The run completed, but t";
      if (why.rfind(lead, 0) == 0) why = "T" + why.substr(lead.size());
      conf -= 0.15;
    }
    decide("divergence", conf, why);
    if (loss_only)
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "No exit status was given: whether the run ended normally or was cut short is not known; "
                              "this verdict rests on the loss values alone.");
    else
      finding("healthy", "the process exited 0 with no error in the log", 0.3, {});
    return true;
    };
  const bool strong_div =
      has_trend && (tr.trend == LossTracker::Trend::up || flat_long || grad_zero || lr_zero || exploded || chance_k || frozen);
  if (strong_div) return diverged();
  // The share of the step spent waiting for the input pipeline (0 when not printed).
  const double data_frac = P.data_time.count() >= 3 && P.step_time.count() >= 3
                               ? P.data_time.sum() / std::max(P.step_time.sum(), 1e-12) *
                                     (static_cast<double>(P.step_time.count()) / static_cast<double>(P.data_time.count()))
                               : 0.0;
  const auto starved = [&](double conf) {
    v_.shows.push_back("waiting for data took about " + std::to_string(static_cast<int>(std::min(data_frac, 1.0) * 100)) +
                       "% of the step time over " + std::to_string(P.data_time.count()) + " steps (from line " +
                       std::to_string(P.data_time.first_line()) + ")");
    if (P.loader_warning) cite_marker(P.loader_warning, "progress.loader_warning", "the data loader warns about its workers");
    decide("underutilized", conf, "");
    if (loss_only)
      v_.cannot_decide.insert(v_.cannot_decide.begin(),
                              "No exit status was given: how the run ended is not known; this verdict rests on the "
                              "printed step and data-loading times alone.");
    return true;
  };
  // A step that is mostly waiting for data is visible in any stretch of the log.
  // Throughput needs the run's real end: a pasted log's own "finished" line is not enough.
  const bool throughput_unknown = loss_only || completed_by_log_;
  if (throughput_unknown && data_frac >= 0.7) return starved(0.5);
  if (throughput_unknown) return false;
  // 4. A setting that wastes the hardware.
  {
    const bool save_each = P.ckpt_saves >= 5 && steps > 0 && P.ckpt_saves * 2 >= steps;
    const bool socket = P.net_socket && !P.net_ib;
    if (save_each || P.launch_blocking || socket) {
      int n = 0;
      if (save_each) {
        cite_marker(P.first_save, "progress.ckpt_save",
                    std::to_string(P.ckpt_saves) + " checkpoint saves for " + std::to_string(steps) +
                        " training steps: a checkpoint nearly every step");
        ++n;
      }
      if (P.launch_blocking) {
        cite_marker(P.launch_blocking, "progress.launch_blocking",
                    "CUDA_LAUNCH_BLOCKING=1 is set: every CUDA kernel launch waits for the previous one");
        ++n;
      }
      if (socket) {
        cite_marker(P.net_socket, "progress.nccl_socket",
                    "NCCL runs its collectives over TCP sockets (NET/Socket), not InfiniBand/RoCE");
        ++n;
      }
      return decide("throughput_bound", 0.55 + 0.1 * n, "");
    }
  }
  // 5. One rank slower than its peers.
  if (P.ranks.size() >= 2) {
    const auto mean_of = [](double s, std::uint64_t n) { return n ? s / static_cast<double>(n) : -1.0; };
    std::vector<std::pair<std::string, double>> compute, wait, step;
    for (const auto& [r, t] : P.ranks) {
      if (t.compute_n) compute.emplace_back(r, mean_of(t.compute_sum, t.compute_n));
      if (t.wait_n) wait.emplace_back(r, mean_of(t.wait_sum, t.wait_n));
      if (t.step_n) step.emplace_back(r, mean_of(t.step_sum, t.step_n));
    }
    const auto outlier = [](const std::vector<std::pair<std::string, double>>& v, double ratio) -> std::optional<std::size_t> {
      if (v.size() < 2) return std::nullopt;
      std::size_t hi = 0;
      for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i].second > v[hi].second) hi = i;
      std::vector<double> others;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (i != hi) others.push_back(v[i].second);
      std::sort(others.begin(), others.end());
      const double med = others[others.size() / 2];
      if (med > 0 && v[hi].second >= ratio * med) return hi;
      return std::nullopt;
    };
    std::optional<std::string> slow;
    std::string how;
    if (auto i = outlier(compute, 1.5)) {
      slow = compute[*i].first;
      how = "its compute time per step is " + fmt(compute[*i].second * 1000) + " ms, well above its peers'";
    } else if (auto j = outlier(step, 1.3)) {
      slow = step[*j].first;
      how = "its step time is " + fmt(step[*j].second * 1000) + " ms, well above its peers'";
    }
    if (slow) {
      const auto& t = P.ranks.at(*slow);
      std::string rank = *slow;
      std::string digits;
      for (char c : rank)
        if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
      facts.emplace_back("rank", digits.empty() ? rank : digits);
      v_.evidence.push_back(Citation{t.line, t.text, "progress.rank_timing"});
      v_.shows.push_back("rank " + (digits.empty() ? rank : digits) + ": " + how + " (" + std::to_string(P.ranks.size()) +
                         " ranks compared)");
      if (!wait.empty()) v_.shows.push_back("the other ranks spend their time waiting in the collective for it");
      return decide("straggler", 0.65, "");
    }
  }
  // 6. Throttle notices with slower steps.
  const bool timed = P.step_time.count() >= 6;
  const double slowdown = timed && P.step_time.early() > 0 ? P.step_time.late() / P.step_time.early() : 0;
  if (P.throttle_active_n > 0) {
    if (!timed || slowdown >= 1.2) {
      cite_marker(P.throttle_active, "progress.throttle", "a GPU clock throttle reason (thermal/power) is active");
      if (P.throttle_active_n > 1) v_.shows.push_back(std::to_string(P.throttle_active_n) + " throttle-active records in all");
      if (timed)
        v_.shows.push_back("the step time rose from about " + fmt(P.step_time.early()) + " s to about " +
                           fmt(P.step_time.late()) + " s (x" + fmt(slowdown) + ")");
      return decide("thermal_throttle", timed ? 0.75 : 0.5, "");
    }
  }
  // 7. The input pipeline dominates the step.
  if (data_frac >= 0.5) return starved(data_frac >= 0.7 ? 0.7 : 0.5);
  // A plateau near the starting value (weaker than the cases above).
  if (stuck) return diverged();
  // 8. Correct, but the steps became much slower than the run's own early steps.
  // Printed step times are often rounded (Keras "0ms/step"): demand a real difference too.
  if (timed && slowdown >= 2.0 && P.step_time.early() > 0 && P.step_time.late() - P.step_time.early() >= 0.005 &&
      tr.trend != LossTracker::Trend::up) {
    v_.shows.push_back("the step time rose from about " + fmt(P.step_time.early()) + " s (early steps, from line " +
                       std::to_string(P.step_time.first_line()) + ") to about " + fmt(P.step_time.late()) +
                       " s (last steps, to line " + std::to_string(P.step_time.last_line()) + "): x" + fmt(slowdown));
    return decide("healthy_slow", tr.trend == LossTracker::Trend::down ? 0.7 : 0.55, "");
  }
  if (P.throttle_active_n > 0)
    finding("thermal_throttle", "line " + std::to_string(P.throttle_active.line) + ": " + P.throttle_active.text +
                                    " (throttling was reported, but the step time did not suffer)",
            0.3, {});
  return false;
}

// Whether the last non-blank lines (up to 3) are all distributed set-up chatter; LAST
// receives them.
bool Decider::ends_in_setup_chatter(std::vector<Citation>& last) const {
  static const RE2 chatter(
      R"(NCCL INFO|Reducer buckets have been rebuilt|Distributed group initialized|Initializing (?:process group|distributed)|)"
      R"(store_based_barrier_key|Completed store-based barrier|Init COMPLETE|Connected all (?:rings|trees)|)"
      R"(Added key: |Rank \d+ is waiting|MASTER_ADDR=|Setting up distributed|Using network (?:IB|Socket)|)"
      R"(init_distributed|Initializing TorchBackend|batch_all_reduce: \d+ all-reduces)");
  std::vector<const Citation*> lines;  // the last non-blank lines, newest first
  for (auto it = scan_.tail.rbegin(); it != scan_.tail.rend() && lines.size() < 4; ++it)
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

// The training program's own end-of-run line (rule progress.run_end) among the last
// lines of the log: nothing but shutdown chatter may follow it.
const Citation* Decider::finish_marker_near_end() const {
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < rules_.rules.size(); ++i)
    if (rules_.rules[i].id == "progress.run_end")
      for (const Hit* h : scan_.hits[i].all()) last = std::max(last, h->line);
  if (!last) return nullptr;
  int n = 0;
  for (auto it = scan_.tail.rbegin(); it != scan_.tail.rend() && n < 25; ++it, ++n)
    if (it->line == last) return &*it;
  return nullptr;
}

// Whether the run reached the length it announced ("Epoch 50/50", "step 1000/1000"; a
// last epoch counted from 0 prints 49/50); the line that shows it, or null.
const Marker* Decider::announced_end_reached() const {
  const ProgressTracker& P = scan_.progress;
  if (P.total_steps && P.last_counted_step && P.max_step >= P.total_steps) return &P.last_counted_step;
  if (P.total_epochs >= 2 && P.last_epoch && P.max_epoch + 1 >= P.total_epochs) return &P.last_epoch;
  return nullptr;
}

// No cause and no disposition: healthy needs positive evidence.
void Decider::healthy_from_text(const Citation* fin, const Marker* end, Facts& facts) {
  const auto tr = scan_.loss.trend();
  const bool down = tr.trend == LossTracker::Trend::down;
  set_class("healthy");
  double conf = 0.3;
  if (fin) {
    v_.evidence.push_back(Citation{fin->line, fin->text, "progress.run_end"});
    v_.shows.push_back("line " + std::to_string(fin->line) + ": the training program says that it finished");
    conf += 0.15;
  }
  if (end) {
    const ProgressTracker& P = scan_.progress;
    const bool by_step = end == &P.last_counted_step;
    cite_marker(*end, "progress.announced_end",
                by_step ? "step " + std::to_string(P.max_step) + " of the " + std::to_string(P.total_steps) + " announced"
                        : "epoch " + std::to_string(P.max_epoch) + " of the " + std::to_string(P.total_epochs) +
                              " announced: the run reached its planned length");
    conf += 0.15;
  }
  if (down) {
    v_.shows.push_back(loss_summary());
    conf += 0.15;
  }
  v_.shows.push_back("no error, crash or scheduler action was found in " + std::to_string(scan_.lines) + " lines");
  add_text("healthy", facts);
  v_.confidence = std::min(conf, 0.65);
  if (!fin && !end)
    v_.cannot_decide.insert(v_.cannot_decide.begin(),
                            "The log stops while training still runs, with no end-of-run line and no announced length "
                            "reached: the run may have gone on to finish, or been stopped after this point.");
  v_.cannot_decide.insert(v_.cannot_decide.begin(),
                          "No exit status was given: the process may still have failed after the last line (saving, "
                          "evaluation, shutdown).");
}

// No cause and no disposition: healthy needs positive evidence.
Verdict Decider::healthy_or_not() {
  const auto tr = scan_.loss.trend();
  show_status();
  Facts facts;
  if (exit_.code) facts.emplace_back("exit_code", std::to_string(*exit_.code));
  const ProgressTracker& P = scan_.progress;

  // A pasted log: no exit status, no scheduler state, nothing the wrapper knows.
  const bool pasted = !exit_.code && slurm_.empty() && !st_.exec_failed;
  const Citation* fin = pasted ? finish_marker_near_end() : nullptr;
  std::vector<Citation> chatter;  // a pasted log's last lines, when all are distributed set-up
  if (pasted && !fin) ends_in_setup_chatter(chatter);
  if (exit_.zero) {
    if (!done_but_bad(facts)) {
      set_class("healthy");
      double conf = 0.5;
      const bool down = tr.trend == LossTracker::Trend::down;
      if (down) {
        v_.shows.push_back(loss_summary());
        conf += 0.25;
      }
      if (P.have_step || P.progress_lines)
        v_.shows.push_back(std::to_string(P.have_step ? P.max_step : P.progress_lines) +
                           (P.have_step ? " training steps were reached" : " progress lines were printed"));
      if (slurm_ == "COMPLETED") conf += 0.1;
      v_.shows.push_back("no error, crash or scheduler action was found in " + std::to_string(scan_.lines) + " lines");
      add_text("healthy", facts);
      if (tr.trend == LossTracker::Trend::none) {
        conf = std::min(conf, 0.35);
        v_.cannot_decide.insert(v_.cannot_decide.begin(),
                                "Training correctness: unverifiable. No training-progress format was recognised (no loss "
                                "values), so whether the model learned cannot be checked from the log; only the exit status "
                                "says it ended normally.");
      } else if (tr.trend == LossTracker::Trend::too_few) {
        conf = std::min(conf, 0.4);
        v_.cannot_decide.insert(v_.cannot_decide.begin(),
                                "Only " + std::to_string(scan_.loss.count()) +
                                    " loss value(s) were printed: too few to tell whether it learned.");
      } else if (tr.trend == LossTracker::Trend::flat) {
        v_.cannot_decide.insert(v_.cannot_decide.begin(), "The loss barely moved (" + loss_summary() + "); it may not have learned.");
      }
      if (!st_.events_collected) v_.cannot_decide.push_back("No kernel log was given: a latent GPU fault (Xid/ECC) during the run cannot be excluded.");
      v_.confidence = std::min(conf, 0.95);
      // Suspicions that are not strong enough to be the verdict.
      if (P.loader_warning)
        finding("underutilized", "suspected: line " + std::to_string(P.loader_warning.line) + ": " + P.loader_warning.text, 0.3, {});
    }
  } else if (pasted && fin) {
    // The program says it finished: judge it as a completed run (a handful of steps, a
    // loss that went wrong), else healthy as far as the text goes.
    completed_by_log_ = true;
    if (!done_but_bad(facts)) healthy_from_text(fin, nullptr, facts);
  } else if (pasted && done_but_bad(facts)) {
    // No exit status, no error, but the loss says the training went wrong.
  } else if (const Marker* end = pasted && tr.trend != LossTracker::Trend::up ? announced_end_reached() : nullptr) {
    healthy_from_text(nullptr, end, facts);
  } else if (pasted && chatter.empty() && tr.trend == LossTracker::Trend::down && scan_.loss.finite_count() >= 8) {
    // Still training when the text stops, learning, and no error: the best reading is a
    // healthy run (a log copied or captured before the end), said to be unconfirmed.
    healthy_from_text(nullptr, nullptr, facts);
  } else if (!chatter.empty()) {
    // A pasted log that stops inside NCCL / process-group set-up, with no error after it:
    // the classic picture of ranks waiting for each other forever.
    set_class("hang");
    v_.evidence.insert(v_.evidence.end(), chatter.begin(), chatter.end());
    v_.shows.push_back("the log ends (line " + std::to_string(scan_.lines) +
                       ") in distributed set-up messages (NCCL / process-group initialisation) with no error after them");
    add_text("hang", facts);
    v_.confidence = 0.3;
    v_.cannot_decide.insert(v_.cannot_decide.begin(),
                            "No exit status or timing was given: that the job stalled here is inferred from where its "
                            "output stops; a log cut short by whoever copied it looks the same.");
  } else {
    set_class("unknown");
    if (!exit_.code && slurm_.empty()) {
      v_.shows.push_back("no exit status was given and no rule matched in " + std::to_string(scan_.lines) + " lines");
      v_.confidence = 0.2;
    } else {
      v_.shows.push_back("no rule recognised a cause in " + std::to_string(scan_.lines) + " lines");
      v_.confidence = 0.3;
    }
    if (tr.trend != LossTracker::Trend::none && tr.trend != LossTracker::Trend::too_few) v_.shows.push_back(loss_summary());
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
  add_side_findings("");
  for (const Hit* h : signal_hits_) {
    // A plain exit status ("task 0: Exited with exit code 2") is no signal at all.
    if (!h->signal) continue;
    finding("signal_kill", "line " + std::to_string(h->line) + ": " + says(*h), 0.2, {h});
    break;
  }
  v_.facts = facts;
  if (scan_.partial) v_.cannot_decide.push_back(gap_text());
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
