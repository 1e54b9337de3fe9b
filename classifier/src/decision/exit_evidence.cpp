// The exit status and the log's signal lines as evidence of their own: SIGSEGV, SIGKILL
// (a suspected OOM kill when nothing else names memory), other signals; a command that
// could not be started at all.
#include "analyzers.hpp"

#include <cerrno>

#include "re2/re2.h"

namespace gpualert::classify::detail {
namespace {

// srun ends the rest of a step with SIGKILL once one of its tasks exits non-zero ("task 1:
// Exited with exit code 1" beside "tasks 0,2-3: Killed"): those kills are srun's doing, not
// a cause, and the log's signal is then none.
void drop_kills_srun_made(Decision& d) {
  static const RE2 srun_killed(R"(srun: error: [^:]+: tasks? [\d,\-]+: Killed)");
  static const RE2 srun_failed(R"(srun: error: [^:]+: tasks? [\d,\-]+: Exited with exit code [1-9])");
  if (d.log_signal != 9 || !d.log_signal_hit || !RE2::PartialMatch(d.log_signal_hit->text, srun_killed)) return;
  const Hit* failed = nullptr;
  for (const Hit* h : d.signal_hits)
    if (!failed && RE2::PartialMatch(h->text, srun_failed)) failed = h;
  if (!failed) return;
  d.v.shows.push_back("srun killed the step's other tasks (line " + std::to_string(d.log_signal_line) +
                      ") because a task exited with a non-zero code (line " + std::to_string(failed->line) +
                      "): those kills are srun's, not a cause");
  d.log_signal = 0;
  d.log_signal_line = 0;
  d.log_signal_hit = nullptr;
  // The strongest of the other signal lines, chosen as collect_rule_evidence chooses.
  for (const Hit* h : d.signal_hits)
    if (h->signal != 9 && signal_rank(h->signal) > signal_rank(d.log_signal)) {
      d.log_signal = h->signal;
      d.log_signal_line = h->line;
      d.log_signal_hit = h;
    }
}

}  // namespace

void collect_exit_evidence(Decision& d) {
  drop_kills_srun_made(d);
  const bool oom_seen = d.causes.count("oom_killer") > 0;
  // The exit status and the log's signal lines as evidence of their own.
  int sig = d.exit_status.signal;
  std::string sig_src = "exit status";
  std::uint64_t sig_line = 0;
  if (!sig && d.log_signal && !d.exit_status.zero) {
    sig = d.log_signal;
    sig_src = "log";
    sig_line = d.log_signal_line;
  }
  const Hit* sig_hit = sig_src == "log" ? d.log_signal_hit : nullptr;
  if (sig == 11) {
    d.add_cand(Cand{"segfault", 65, sig_line, sig_hit,
                  sig_src == "log" ? "a process was reported killed by SIGSEGV (line " + std::to_string(sig_line) + ")"
                                   : "the exit status says the process died of SIGSEGV",
                  sig_src, {}, 1, 1, {}, false});
  } else if (sig == 9 && !oom_seen && !(d.st.events_collected && sig_src == "exit status")) {
    // SIGKILL with no memory record: on a compute node the kernel's or the cgroup's OOM
    // killer sends most of them, so that is the reading, marked as suspected. Only a
    // kernel log that was read and holds no OOM record argues for another sender.
    Cand c{"oom_killer", sig_src == "log" ? 35 : 20, sig_line, sig_hit,
           (sig_src == "log" ? "a process was reported killed by SIGKILL (line " + std::to_string(sig_line) + ")"
                             : std::string("the exit status says the process died of SIGKILL")) +
               ": suspected OOM kill (no memory record confirms it)",
           sig_src, {}, 1, 1, {}, false};
    c.suspected = true;
    d.add_cand(c);
  } else if (sig) {
    // A log line naming the signal ("worker killed by signal: Killed") is more specific
    // than the generic exception a launcher raises about it; the exit status alone is not.
    d.add_cand(Cand{"signal_kill", sig_src == "log" ? 35 : 20, sig_line, sig_hit,
                  sig_src == "log" ? std::string("a process was reported killed by ") + signame(sig) + " (line " +
                                         std::to_string(sig_line) + ")"
                                   : std::string("the exit status says the process died of ") + signame(sig),
                  sig_src, {}, 1, 1, {}, false});
  }
  // The wrapper could not exec the command and the log lacks its line: still a startup failure.
  if (d.st.exec_failed && d.causes.empty()) {
    const bool eacces = d.exit_status.code && *d.exit_status.code == 126;
    d.add_cand(Cand{eacces ? "permission" : "missing_module", 80, 0, nullptr,
                  eacces ? "the command exists but could not be executed (exit 126)"
                         : "the command could not be found (exit 127 / exec failure)",
                  "exit status", {}, 1, 1, {}, false});
  }
  // The launcher could not start the command: a path the user gave it (output file,
  // working directory) is not theirs to use, or does not exist.
  if (!d.st.launch_failure.empty() && d.causes.empty()) {
    const int e = d.st.launch_errno;
    const char* cls = (e == EACCES || e == EPERM || e == EROFS) ? "permission"
                      : (e == ENOENT || e == ENOTDIR)           ? "file_not_found"
                                                                : nullptr;
    if (cls) d.add_cand(Cand{cls, 80, 0, nullptr, d.st.launch_failure, "launcher", {}, 1, 1, {}, false});
  }
}

}  // namespace gpualert::classify::detail
