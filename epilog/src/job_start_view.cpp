#include "job_start_view.hpp"

namespace gpualert::epilog {

std::optional<spool::JobStartRecord> read_job_start(const spool::DirFd& dir, const std::string& node, std::uint32_t job,
                                                    uid_t uid, std::string& note) {
  const std::string name = spool::job_start_file_name(node);
  std::string why;
  const auto text = spool::read_at(dir, name, 1 << 20, why);
  if (!text) {
    note = "no job-start record (" + name + ": " + why + "): the job's window is taken from its steps";
    return std::nullopt;
  }
  try {
    auto r = spool::job_start_from_json(nlohmann::json::parse(*text));
    if (r.job != job || r.uid != uid) {
      note = name + " is not this job's (job " + std::to_string(r.job) + ", uid " + std::to_string(r.uid) + "): ignored";
      return std::nullopt;
    }
    note = name + ": " + (r.gpus_known ? std::to_string(r.gpus.size()) + " GPU(s)" : std::string("GPUs not known")) +
           ", " + std::to_string(r.baseline.size()) + " GPU fault(s) before the start, taken in " +
           std::to_string(static_cast<int>(r.took_ms + 0.5)) + " ms";
    for (const auto& n : r.notes) note += "; " + n;
    return r;
  } catch (const std::exception& e) {
    note = name + " is malformed (" + e.what() + "): ignored";
    return std::nullopt;
  }
}

report::KernelStart kernel_start(const spool::JobStartRecord& r) {
  report::KernelStart k;
  k.kmsg_after_seq = r.kmsg_seq;
  k.journal_after_cursor = r.journal_cursor;
  for (const auto& e : r.baseline) k.before.push_back({e.time_us, e.source + " (before the job)", e.text, true});
  return k;
}

bool apply_job_gpus(classify::RunStatus& status, const spool::JobStartRecord& r) {
  if (!r.gpus_known) return false;
  status.gpus.clear();
  for (const auto& g : r.gpus) status.gpus.push_back(g.bus_id);
  if (status.gpus.empty()) status.gpus = {"none"};
  return true;
}

std::chrono::system_clock::time_point start_time(const spool::JobStartRecord& r) {
  return std::chrono::system_clock::time_point(std::chrono::microseconds(r.started_us));
}

}  // namespace gpualert::epilog
