#include "gpualert/report/run_evidence.hpp"

#include <cstdlib>
#include <fstream>

#include "gpualert/common/stream_index.hpp"
#include "gpualert/events/kernel_events.hpp"

namespace gpualert::report {
namespace {
// Kernel records of an OOM kill or an Xid can trail the process's death by a moment.
constexpr auto kSlack = std::chrono::seconds(5);
// No syslog files: a line there is not proven the kernel's. Any user can log to
// /var/log/messages, and /dev/log takes a raw "<3>... kernel: NVRM: Xid ..." datagram
// (facility kern; only glibc's syslog() and util-linux logger refuse it) that journald
// forwards verbatim and rsyslog files under kern.* in kern.log. The journal's kernel
// transport and /dev/kmsg carry the same records with their origin;
// `gpualert classify --kernel-log FILE` still reads a file its user chose.

std::int64_t to_us(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}
}  // namespace

NodeKernelLog read_node_kernel_log(std::chrono::system_clock::time_point from, std::chrono::system_clock::time_point to,
                                   const KernelStart* start) {
  events::EventSources src;
  src.journal = events::journal_supported();
  if (start) {
    src.kmsg_after_seq = start->kmsg_after_seq;
    src.journal_after_cursor = start->journal_after_cursor;
  }
  const auto rep = events::read_kernel_events_report(from - kSlack, to + kSlack, src);
  NodeKernelLog out;
  out.read_any = rep.any_source();
  out.errors = rep.errors;
  for (const auto& e : rep.events) out.events.push_back({e.has_time() ? to_us(e.time) : 0, e.source, e.text});
  return out;
}

void add_kernel_events(classify::RunStatus& status, std::chrono::system_clock::time_point from,
                       std::chrono::system_clock::time_point to, std::vector<std::string>& problems,
                       const KernelStart* start) {
  // Only a known GPU can be said to have been sick before: without the run's GPUs an
  // earlier record could be anyone's, and the window stays the run's own.
  const bool baseline = !status.gpus.empty() && status.gpus.front() != "none";
  const bool positioned = start && start->positioned();
  NodeKernelLog k = read_node_kernel_log(baseline && !positioned ? from - kBaseline : from, to,
                                         positioned ? start : nullptr);
  if (positioned && baseline)
    for (const auto& e : start->before) k.events.push_back(e);
  status.start_time_us = to_us(from);
  status.end_time_us = to_us(to);
  status.events_collected = k.read_any;
  for (auto& e : k.events) status.events.push_back(std::move(e));
  if (!k.read_any && !k.errors.empty()) problems.push_back("no kernel log could be read: " + k.errors.front());
}

void add_job_gpus(classify::RunStatus& status, std::string_view list, events::IndexMeaning meaning,
                  std::vector<std::string>& problems) {
  const char* dir = std::getenv("GPUALERT_NVIDIA_GPUS_DIR");
  const auto inv = events::read_gpu_inventory(dir && *dir ? dir : events::kNvidiaGpusDir);
  const auto sel = events::select_gpus(inv, list, meaning);
  if (!sel.known) {
    problems.push_back("which GPUs the run held is not known (" + sel.note +
                       "): every GPU record of the node's kernel log was counted as the run's");
    return;
  }
  status.gpus = sel.bus_ids.empty() ? std::vector<std::string>{"none"} : sel.bus_ids;
}

std::optional<std::pair<std::string, events::IndexMeaning>> gpus_from_environment() {
  if (const char* s = std::getenv("SLURM_JOB_GPUS"); s && *s) return std::make_pair(std::string(s), events::IndexMeaning::device_minor);
  if (const char* c = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    const bool pci = order && std::string_view(order) == "PCI_BUS_ID";
    return std::make_pair(std::string(c), pci ? events::IndexMeaning::pci_order : events::IndexMeaning::cuda_default);
  }
  return std::nullopt;
}

std::optional<double> silence_before_end(const std::filesystem::path& streams, std::chrono::milliseconds duration) {
  std::ifstream in(streams);
  if (!in) return std::nullopt;
  std::string line;
  long long last_ms = -1;
  while (std::getline(in, line)) {
    const auto seg = parse_stream_segment(line);
    if (seg && (seg->tag == 'o' || seg->tag == 'e') && seg->ms > last_ms) last_ms = seg->ms;
  }
  if (last_ms < 0) return std::nullopt;
  const double silent = (static_cast<double>(duration.count()) - static_cast<double>(last_ms)) / 1000.0;
  return silent > 0 ? silent : 0.0;
}

}  // namespace gpualert::report
