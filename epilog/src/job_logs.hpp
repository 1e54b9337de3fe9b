#pragma once
// Everything the plugin left in the spool for one job: the step records of
// every node that can be seen, and one combined log (steps in order, each task
// under a header naming step, node and rank) for the classifier and the mail.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/spool/spool_dir.hpp"
#include "gpualert/spool/step_record.hpp"

namespace gpualert::epilog {

struct JobLogs {
  std::vector<spool::StepRecord> steps;  // batch first, then by step number, then node
  std::filesystem::path combined;        // <job dir>/combined.log
  std::uint64_t combined_bytes = 0;
  std::vector<std::string> nodes_seen, nodes_missing;
  std::vector<std::string> problems;
};

// Waits up to WAIT for a step record from every node in NODES (a shared spool
// fills in as other nodes finish; a node-local one never will).
// Only records of run RESTART (SLURM_RESTART_COUNT) count: a requeued job's
// earlier runs are reported by their own helpers.
// Records naming a user other than UID (another job under a reused id) are ignored.
// The step records in the job directory, the newest run's only (see collect_job_logs).
std::vector<spool::StepRecord> read_step_records(const spool::DirFd& dir, std::uint32_t uid,
                                                 std::vector<std::string>& problems);

// How much of the users' logs the combined log takes: per task the first
// TASK_HEAD and last TASK_TAIL bytes; no task is started past JOB_BYTES.
struct LogLimits {
  std::uint64_t task_head = 8ULL << 20, task_tail = 8ULL << 20, job_bytes = 64ULL << 20;
};

// The combined log is created for the job's user (UID:GID, 0600).
JobLogs collect_job_logs(const spool::DirFd& job_dir, const std::filesystem::path& job_dir_path,
                         const std::vector<std::string>& nodes, std::chrono::seconds wait, int restart,
                         std::uint32_t uid, std::uint32_t gid, const LogLimits& limits = {});

}  // namespace gpualert::epilog
