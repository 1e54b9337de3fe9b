#include "gpualert/spool/job_start_capture.hpp"

#include <algorithm>

#include "gpualert/common/text.hpp"
#include "gpualert/events/gpu_inventory.hpp"
#include "gpualert/events/kernel_events.hpp"
#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::spool {
namespace {

constexpr std::size_t kMaxBaseline = 64;  // the newest GPU faults before the start

std::int64_t to_us(events::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

bool gpu_fault(events::Kind k) {
  return k == events::Kind::xid || k == events::Kind::ecc || k == events::Kind::row_remap ||
         k == events::Kind::fallen_off_bus;
}

void take_gpus(const JobStartInputs& in, JobStartRecord& r) {
  const auto inv = events::read_gpu_inventory(in.gpus_dir);
  for (const auto& n : inv.notes) r.notes.push_back(n);
  events::IndexMeaning meaning = events::IndexMeaning::device_minor;
  if (in.slurm_job_gpus && !in.slurm_job_gpus->empty()) {
    r.gpu_list = *in.slurm_job_gpus;
    r.gpu_list_from = "SLURM_JOB_GPUS";
  } else if (in.cuda_visible_devices) {
    // Slurm sets CUDA_VISIBLE_DEVICES for the prolog from the same gres indices.
    r.gpu_list = *in.cuda_visible_devices;
    r.gpu_list_from = "CUDA_VISIBLE_DEVICES";
  }
  if (!inv.driver) {
    r.notes.push_back("no NVIDIA driver on this node (" + in.gpus_dir.string() +
                      " is missing): no GPU can be named, kernel GPU records count for the whole node");
    return;
  }
  if (r.gpu_list_from.empty()) {
    r.notes.push_back("Slurm gave the job no GPU list (no gpu gres requested or configured): every GPU of the node "
                      "counts as the job's");
    return;
  }
  const auto sel = events::select_gpus(inv, r.gpu_list, meaning);
  if (!sel.known) {
    r.notes.push_back(r.gpu_list_from + "=" + one_line(r.gpu_list, 200) + " could not be mapped on the node's GPUs (" +
                      sel.note + "): every GPU of the node counts as the job's");
    return;
  }
  r.gpus_known = true;
  for (const auto& bus : sel.bus_ids) {
    StartGpu g;
    g.bus_id = bus;
    for (const auto& have : inv.gpus)
      if (have.bus_id == bus) {
        g.minor = have.minor;
        g.uuid = have.uuid;
        g.model = have.model;
      }
    r.gpus.push_back(g);
  }
  if (r.gpus.empty()) r.notes.push_back("the job holds no GPU of this node");
}

void take_kernel_positions(const JobStartInputs& in, JobStartRecord& r, events::Clock::time_point now) {
  std::string err;
  if (const auto text = events::read_kmsg_text(in.kmsg_path, err)) {
    r.kmsg_seq = events::kmsg_last_seq(*text);
    const auto since = now - in.baseline;
    // The GPU driver's records only: every fault kept here is an NVRM line.
    for (auto& e : events::parse_kmsg_with(*text, "NVRM", "kmsg", events::kmsg_zero()))
      if (gpu_fault(e.kind) && (!e.has_time() || e.time >= since))
        r.baseline.push_back({e.has_time() ? to_us(e.time) : 0, "kmsg", std::move(e.text)});
    if (r.baseline.size() > kMaxBaseline)
      r.baseline.erase(r.baseline.begin(), r.baseline.end() - static_cast<std::ptrdiff_t>(kMaxBaseline));
  } else {
    r.notes.push_back(in.kmsg_path.string() + " could not be read (" + err +
                      "): the helper reads the kernel log by time instead of from this position");
  }
  if (!in.journal) return;
  err.clear();
  if (const auto cursor = events::journal_tail_cursor(err)) r.journal_cursor = *cursor;
  else r.notes.push_back(err + ": the journal is read by time");
}

}  // namespace

JobStartRecord take_job_start(const JobStartInputs& in) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto now = events::Clock::now();
  JobStartRecord r;
  r.job = in.job;
  r.uid = in.uid;
  r.node = in.node;
  r.started = iso8601_utc(now);
  r.started_us = to_us(now);
  take_gpus(in, r);
  take_kernel_positions(in, r, now);
  r.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

bool leave_job_start(const std::string& spool_path, const JobStartInputs& in, std::string& why) {
  auto spool = open_spool_root(spool_path, why);
  if (!spool) return false;
  const std::string job = "job " + std::to_string(in.job) + ": ";
  // A job id Slurm hands out again (state lost, ids wrapped) must start from an empty
  // directory even for the same user: a directory whose job was already notified is an
  // earlier job's. (A requeued run was never notified: its files stay.)
  if (auto old = open_job_dir(*spool, in.job, in.uid, false, why))
    if (was_notified(*old)) {
      old.reset();
      if (retire_job_dir(*spool, in.job, why))
        admin_log(*spool, job + "the spool held a notified earlier job with this id; moved to stale/");
    }
  std::string note;
  auto dir = open_job_dir(*spool, in.job, in.uid, true, why, &note);
  if (!note.empty()) admin_log(*spool, job + note);
  if (!dir) {
    admin_log(*spool, job + "job directory unusable: " + why);
    return false;
  }
  const auto record = take_job_start(in);
  if (!write_atomic_at(*dir, job_start_file_name(in.node), to_json(record).dump(1) + "\n", 0, 0, why)) {
    admin_log(*spool, job + "job-start record not written: " + why);
    return false;
  }
  return true;
}

}  // namespace gpualert::spool
