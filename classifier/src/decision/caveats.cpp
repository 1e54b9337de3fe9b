// What the reading of the primary cause cannot settle, said plainly: a warning as the
// best lead, a SIGKILL read by elimination, who sent a signal, exit 0 against a failure.
#include "analyzers.hpp"

#include <algorithm>

namespace gpualert::classify::detail {

void add_caveats(Decision& d, const Cand& p, bool from_warning, int agree) {
  if (from_warning) {
    d.v.confidence = std::min(d.v.confidence, 0.45);
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "The deciding line is a warning, not an error: nothing stronger in the log explains the failure, "
                            "so it is the best lead, not a certainty.");
  }
  // Signal specifics: a bare SIGKILL says who died, not why.
  if (p.suspected) {
    d.v.confidence = std::min(d.v.confidence, 0.4);
    d.v.shows.push_back("no line of the log, no kernel record and no scheduler state names the memory limit");
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "Whether it really was the OOM killer: SIGKILL also comes from an operator's kill -9, from the "
                            "scheduler cleaning up, or from a launcher killing the rest of a failed group. The kernel log "
                            "(dmesg / journal: 'Out of memory: Killed process') or sacct's MaxRSS against the memory "
                            "request would settle it.");
    d.finding("signal_kill", "the plain reading: the process died of SIGKILL from an unknown sender", 0.35, d.signal_hits);
  }
  if (p.cls == "signal_kill") {
    const int s = d.exit_status.signal ? d.exit_status.signal : d.log_signal;
    if (s == 9) {
      // The kernel log answered the class's generic "who sent it" for the OOM killer:
      // say what it showed instead of repeating the open question.
      if (const ClassText* t = d.rules.text_for("signal_kill"))
        for (const auto& generic : t->cannot_decide)
          std::erase(d.v.cannot_decide, generic);
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "Who sent the SIGKILL: the node's kernel log was read and holds no OOM-killer record for the "
                              "run, which points to an operator's kill -9, the scheduler or a launcher rather than memory.");
      d.finding("oom_killer", "unlikely: SIGKILL is what the OOM killer sends, but the kernel log has no OOM record for the run",
              0.15, d.signal_hits);
    } else if (s == 15) {
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "SIGTERM is what Slurm sends at the time limit, on scancel and on preemption; the scheduler's "
                              "record (sacct) tells which.");
    } else if (s == 6) {
      d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                              "SIGABRT comes from a native abort (a failed C++ check, an uncaught C++ exception, a "
                              "watchdog); the lines just before the end may name it.");
    }
  }
  if (p.cls == "oom_killer" && d.exit_status.code && !d.exit_status.signal && *d.exit_status.code != 0)
    d.v.implies.push_back("The job exited with a status rather than a signal: the OOM killer probably took a worker "
                         "(e.g. a dataloader process), and the main process failed afterwards.");

  // Exit 0 with a failure in the log.
  if (d.exit_status.zero && agree < 0) {
    d.v.cannot_decide.insert(d.v.cannot_decide.begin(),
                            "The process exited 0 although the log ends in this failure: the error may have been caught and "
                            "handled, or the real exit status was hidden (a pipe such as '| tee' without pipefail, or a "
                            "wrapper script that ignores the status).");
  }
  if (!d.exit_status.code && d.slurm.empty())
    d.v.cannot_decide.push_back("No exit status was given, so the log is the only witness.");

}

}  // namespace gpualert::classify::detail
