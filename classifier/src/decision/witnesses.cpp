// How far the independent witnesses support the primary cause: the exit status (unless
// the scheduler ended the job), Slurm's state, the node's kernel log agreeing with the
// job's own log. Sets the verdict's confidence; returns the exit status's agreement.
#include <algorithm>

#include "analyzers.hpp"

namespace gpualert::classify::detail {

int weigh_witnesses(Decision& d, const Cand& p, bool disposition_primary) {
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
  return agree;
}

}  // namespace gpualert::classify::detail
