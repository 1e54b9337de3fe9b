#pragma once
// What the node knew when a job started (written by the plugin's job_prolog, as
// root, before any of the job's programs runs): the GPUs Slurm gave the job and
// their PCI addresses, where the kernel's logs stood (ring-buffer sequence number,
// journal cursor), and the node's GPU faults of the hours before. The epilog helper
// reads exactly the job's window from those positions, counts only its own GPUs'
// faults, and can say the node was already sick. Kept as job-start.<node>.json in
// the job's directory. Nothing in it is the user's: every field comes from Slurm's
// prolog environment (root's), the kernel or the driver.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpualert::spool {

struct StartGpu {
  int minor = -1;       // /dev/nvidia<minor>
  std::string bus_id;   // "0000:3b:00"
  std::string uuid, model;
};

struct StartEvent {
  std::int64_t time_us = 0;  // wall clock, microseconds since the epoch (0: unknown)
  std::string source, text;
};

struct JobStartRecord {
  std::uint32_t job = 0;
  std::uint32_t uid = 0;
  std::string node;
  std::string started;          // ISO-8601 UTC
  std::int64_t started_us = 0;  // the same, in microseconds
  std::string gpu_list;         // what Slurm gave, e.g. "0,2" (SLURM_JOB_GPUS) or a CUDA list
  std::string gpu_list_from;    // "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", or empty: none given
  bool gpus_known = false;      // GPUS is the job's exact set (else every GPU counts)
  std::vector<StartGpu> gpus;   // the job's GPUs (empty and known: the job holds none)
  std::optional<std::uint64_t> kmsg_seq;  // the ring buffer's last record at the start
  std::string journal_cursor;             // the journal's last entry at the start
  std::vector<StartEvent> baseline;       // the node's GPU faults of the hours before
  std::vector<std::string> notes;         // what could not be read, one sentence each
  double took_ms = 0;                     // how long the prolog's work took
};

// "job-start.<node>.json"
std::string job_start_file_name(const std::string& node);

nlohmann::json to_json(const JobStartRecord& r);
// Throws nlohmann::json::exception on a malformed record; bounded (a record with more
// than 256 GPUs, baseline events or notes keeps the first ones).
JobStartRecord job_start_from_json(const nlohmann::json& j);

}  // namespace gpualert::spool
