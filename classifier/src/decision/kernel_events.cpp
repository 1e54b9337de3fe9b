// Kernel / driver records of the node (RunStatus::events): Xid, ECC, fallen off the
// bus, OOM-killer. An independent witness next to the job's own output.
#include "analyzers.hpp"

#include <algorithm>
#include <ctime>

#include "gpualert/common/text.hpp"
#include "gpualert/events/kernel_events.hpp"

namespace gpualert::classify::detail {
namespace {

// "2026-11-27 14:02:11" in the node's local time, as the kernel log's reader would see it.
std::string clock_text(std::int64_t us) {
  const std::time_t t = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

void collect_kernel_events(Decision& d) {
  namespace ev = gpualert::events;
  const auto in_window = [&](const KernelEvent& k) {
    if (k.before_start) return false;
    if (!k.time_us || !d.st.start_time_us) return true;  // no time: cannot call it pre-existing
    return k.time_us >= *d.st.start_time_us - 5'000'000 &&
           (!d.st.end_time_us || k.time_us <= *d.st.end_time_us + 60'000'000);
  };
  const auto event_cite = [](const KernelEvent& k, const std::string& rule) {
    return Citation{0, "[" + k.source + "] " + one_line(k.text, 300), rule};
  };
  std::optional<Cand> hw, oom;
  int oom_rank = -1;
  std::vector<Citation> pre;       // pre-existing hardware records
  std::vector<Citation> pre_mine;  // ... on a GPU known to be the run's
  std::string pre_mine_what;       // the first of those, as a claim
  std::vector<std::string> neighbours, neighbour_ids;  // GPUs of other runs that faulted ("<id> at <time>"; ids)
  std::vector<Citation> neighbour_cites;
  bool unnamed = false;  // a hardware record that names no GPU, counted although the run's GPUs are known
  const bool gpus_known = !d.st.gpus.empty();
  for (const auto& k : d.st.events) {
    const auto e = ev::parse_event_text(k.text);
    if (!e) continue;
    const bool during = in_window(k);
    const bool fault_record = e->kind == ev::Kind::xid || e->kind == ev::Kind::ecc || e->kind == ev::Kind::row_remap ||
                              e->kind == ev::Kind::fallen_off_bus;
    const bool gpu_record = fault_record || e->kind == ev::Kind::throttle;
    // Whose GPU: the collector's word for a record of another node, else the run's list.
    const bool named = !e->bus_id.empty() && (gpus_known || k.on_job_gpu.has_value());
    const bool mine = k.on_job_gpu ? *k.on_job_gpu
                                   : std::find(d.st.gpus.begin(), d.st.gpus.end(), e->bus_id) != d.st.gpus.end();
    if (gpu_record && named && !mine) {
      // Another GPU of the node: a neighbour's fault, never this run's cause (listed once per GPU).
      if (fault_record && during && std::find(neighbour_ids.begin(), neighbour_ids.end(), e->bus_id) == neighbour_ids.end()) {
        neighbour_ids.push_back(e->bus_id);
        neighbours.push_back(e->bus_id + (k.time_us ? " at " + clock_text(k.time_us) : std::string()));
        if (neighbour_cites.size() < 3) neighbour_cites.push_back(event_cite(k, "events.neighbour"));
      }
      continue;
    }
    if (fault_record && gpus_known && e->bus_id.empty()) unnamed = true;
    if (fault_record) {
      std::string claim;
      bool hardware = true;
      if (e->kind == ev::Kind::xid) {
        const int n = e->xid.value_or(-1);
        const auto& info = ev::xid_info(n);
        hardware = info.blame == ev::XidBlame::hardware || info.blame == ev::XidBlame::driver;
        claim = "the kernel log records NVIDIA Xid " + std::to_string(n) + " (" + info.meaning + "; NVIDIA's Xid catalogue: " +
                ev::to_string(info.blame) + ")";
        if (!hardware) {
          Cand c{"gpu_hardware", 30, 0, nullptr, claim + " - usually the application's own fault, not the GPU", "kernel log", {}, 1, 1, {}, false};
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
        if (k.before_start || (k.time_us && d.st.start_time_us && k.time_us < *d.st.start_time_us)) {
          (named ? pre_mine : pre).push_back(event_cite(k, "events.preexisting"));
          if (named && pre_mine.size() == 1) pre_mine_what = claim + " on this run's GPU " + e->bus_id +
                                                                         " at " + clock_text(k.time_us);
        }
        continue;
      }
      if (!hw) {
        hw = Cand{"gpu_hardware", 100, 0, nullptr, claim + " during the run", "kernel log", {}, 0, 1, {}, false};
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
      if (!oom) oom = Cand{"oom_killer", 80, 0, nullptr, what, "kernel log", {}, 0, 1, {}, false};
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
    if (unnamed) hw->claim += " (a record that names no GPU counts for every job on the node)";
    d.event_classes.push_back("gpu_hardware");
    d.add_cand(*hw);
  } else if (!pre_mine.empty() && ((d.exit_status.code && !d.exit_status.zero) || (!d.slurm.empty() && d.slurm != "COMPLETED"))) {
    // The run's own GPU had failed before the run began, and the run failed: the node
    // was already sick. Below the job's own specific errors (an OOM, a missing module),
    // above what a broken GPU makes a program print (CUDA errors, NCCL, a segfault).
    Cand c{"gpu_hardware", 85, 0, nullptr,
           "the node was already sick: " + pre_mine_what + ", before this run started (the GPU was faulty when the "
           "run was given it)",
           "kernel log", {}, pre_mine.size(), 1, {}, false};
    c.cites = pre_mine;
    d.event_classes.push_back("gpu_hardware");
    d.add_cand(c);
  } else {
    pre.insert(pre.end(), pre_mine.begin(), pre_mine.end());
  }
  if (!neighbours.empty()) {
    // Said, never blamed: the GPUs of other jobs on this node.
    Finding f;
    f.cls = "gpu_hardware";
    f.summary = "not this job's: GPU " + join(neighbours, ", ") + " of this node faulted during the run; this run's GPUs (" +
                join(d.st.gpus, ", ") + ") have no fault recorded";
    f.confidence = 0.3;
    f.evidence = neighbour_cites;
    d.v.secondary.push_back(std::move(f));
  }
  if (oom) {
    d.event_classes.push_back("oom_killer");
    d.add_cand(*oom);
  }
  if (!pre.empty() && !hw) {
    Cand c{"gpu_hardware", 100, 0, nullptr,
           "flag this GPU: the kernel log has hardware error records from before the run started (a pre-existing "
           "condition, not the cause of this run's end)",
           "kernel log", {}, pre.size(), 1, {}, false};
    c.cites = pre;
    d.weak["gpu_hardware"] = c;
  }
}

}  // namespace gpualert::classify::detail
