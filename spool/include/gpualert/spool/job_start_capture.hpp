#pragma once
// The job-start record (see gpualert/spool/job_start_record.hpp), taken in the
// plugin's job_prolog (or by gpualert-epilog --job-start from a Slurm Prolog= script): which GPUs Slurm gave the job and their PCI addresses (from
// the driver's /proc files, no NVML), the kernel logs' positions, and the node's GPU
// faults of the hours before. Only local reads, no waiting: a node without the driver,
// a job without GPUs, an unreadable ring buffer each leave a note, never a failure.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "gpualert/spool/job_start_record.hpp"

namespace gpualert::spool {

struct JobStartInputs {
  std::uint32_t job = 0;
  std::uint32_t uid = 0;
  std::string node;
  std::optional<std::string> slurm_job_gpus;        // SLURM_JOB_GPUS from the prolog's environment
  std::optional<std::string> cuda_visible_devices;  // CUDA_VISIBLE_DEVICES from it
  std::filesystem::path gpus_dir = "/proc/driver/nvidia/gpus";
  std::filesystem::path kmsg_path = "/dev/kmsg";
  bool journal = true;
  std::chrono::hours baseline{6};
};

JobStartRecord take_job_start(const JobStartInputs& in);

// The whole prolog step, as root: binds the job's directory in the spool at SPOOL_PATH
// to IN.uid (an already notified earlier job with the same id is moved to stale/ first),
// takes the record and writes job-start.<node>.json. Problems go to the spool's admin
// log; false when nothing could be written (WHY says why).
bool leave_job_start(const std::string& spool_path, const JobStartInputs& in, std::string& why);

}  // namespace gpualert::spool
