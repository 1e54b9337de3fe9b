// Kernel / driver records of the node (RunStatus::events): Xid, ECC, fallen off the
// bus, OOM-killer. An independent witness next to the job's own output.
#include "analyzers.hpp"

#include <algorithm>

#include "gpualert/common/text.hpp"
#include "gpualert/events/kernel_events.hpp"

namespace gpualert::classify::detail {

void collect_kernel_events(Decision& d) {
  namespace ev = gpualert::events;
  const auto in_window = [&](const KernelEvent& k) {
    if (!k.time_us || !d.st.start_time_us) return true;  // no time: cannot call it pre-existing
    return k.time_us >= *d.st.start_time_us - 5'000'000 &&
           (!d.st.end_time_us || k.time_us <= *d.st.end_time_us + 60'000'000);
  };
  const auto event_cite = [](const KernelEvent& k, const std::string& rule) {
    return Citation{0, "[" + k.source + "] " + one_line(k.text, 300), rule};
  };
  std::optional<Cand> hw, oom;
  int oom_rank = -1;
  std::vector<Citation> pre;  // pre-existing hardware records
  for (const auto& k : d.st.events) {
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
          c.cites.push_back(event_cite(k, "events.xid_app"));
          if (!d.weak.count("gpu_hardware")) d.weak["gpu_hardware"] = c;
          continue;
        }
      } else {
        claim = e->kind == ev::Kind::fallen_off_bus ? "the kernel log says the GPU fell off the bus"
                : e->kind == ev::Kind::ecc         ? "the kernel log records an uncorrectable ECC error"
                                                   : "the kernel log records a row-remapping failure";
      }
      if (!during) {
        pre.push_back(event_cite(k, "events.preexisting"));
        continue;
      }
      if (!hw) {
        hw = Cand{"gpu_hardware", 100, 0, nullptr, claim + " during the run", "kernel log", {}, 0, 1};
      }
      hw->count++;
      if (hw->cites.size() < 3) hw->cites.push_back(event_cite(k, "events.gpu"));
    } else if (e->kind == ev::Kind::oom_kill && during) {
      // Whose process died: the job's own pid, a cgroup that holds only the job, or, when
      // the run itself ended by SIGKILL, a process of the same user (a child the wrapper
      // never saw, e.g. python under a batch shell).
      const bool by_pid = e->pid && std::find(d.st.pids.begin(), d.st.pids.end(), *e->pid) != d.st.pids.end();
      const bool by_cgroup = !e->cgroup.empty() && std::any_of(d.st.cgroup_marks.begin(), d.st.cgroup_marks.end(), [&](const std::string& m) {
        return !m.empty() && (e->cgroup + "/").find(m + "/") != std::string::npos;
      });
      const bool killed9 = d.exit_status.signal == 9 || d.log_signal == 9;
      const bool same_user = killed9 && e->uid && d.st.uid && *e->uid == *d.st.uid;
      if (!by_pid && !by_cgroup && !same_user && !(d.st.pids.empty() && killed9)) continue;
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
      if (oom->cites.size() < 3) oom->cites.push_back(event_cite(k, "events.oom"));
    } else if (e->kind == ev::Kind::throttle && during) {
      ++d.event_throttle;
    }
  }
  if (hw) {
    d.event_classes.push_back("gpu_hardware");
    d.add_cand(*hw);
  }
  if (oom) {
    d.event_classes.push_back("oom_killer");
    d.add_cand(*oom);
  }
  if (!pre.empty() && !hw) {
    Cand c{"gpu_hardware", 100, 0, nullptr,
           "flag this GPU: the kernel log has hardware error records from before the run started (a pre-existing "
           "condition, not the cause of this run's end)",
           "kernel log", {}, pre.size(), 1};
    c.cites = pre;
    d.weak["gpu_hardware"] = c;
  }
}

}  // namespace gpualert::classify::detail
