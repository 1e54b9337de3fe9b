// Slurm's own record of how the job ended, as a disposition (or a cause for OUT_OF_MEMORY).
#include "analyzers.hpp"

namespace gpualert::classify::detail {

void collect_scheduler_state(Decision& d) {
  // The scheduler's own record.
  auto sched = [&](const char* cls, const std::string& why) {
    Cand c{cls, 10, 0, nullptr, why, "scheduler state", {}, 1, 1, {}, false};
    if (!d.disposition) d.disposition = c;
    else if (d.disposition->cls != cls && d.disposition->source == "log") {
      // The log line and the state disagree: trust the state, keep the line as support.
      d.disposition = c;
    }
  };
  if (d.slurm == "TIMEOUT" || d.slurm == "DEADLINE") sched("timeout", "Slurm recorded the job as " + d.slurm);
  else if (d.slurm == "PREEMPTED" || d.slurm == "REQUEUED") sched("preempted", "Slurm recorded the job as " + d.slurm);
  else if (d.slurm == "NODE_FAIL" || d.slurm == "BOOT_FAIL") sched("node_fail", "Slurm recorded the job as " + d.slurm);
  else if (d.slurm == "CANCELLED") sched("cancelled", "Slurm recorded the job as CANCELLED");
  else if (d.slurm == "OUT_OF_MEMORY" || d.slurm == "OOM")
    d.add_cand(Cand{"oom_killer", 90, 0, nullptr, "Slurm recorded the job as OUT_OF_MEMORY (the cgroup memory limit killed it)",
                  "scheduler state", {}, 1, 1, {}, false});

}

}  // namespace gpualert::classify::detail
