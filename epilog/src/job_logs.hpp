#pragma once
// Everything the plugin left in the spool for one job: the step records of
// every node that can be seen, and one combined log (steps in order, each task
// under a header naming step, node and rank) for the classifier and the mail.
#include <chrono>
#include <filesystem>
#include <map>
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
  // Where each job's task logs are (a heterogeneous job's components each have a
  // directory): job id -> directory descriptor, owned by the caller.
  std::map<std::uint32_t, int> dir_of_job;
  int dir_for(std::uint32_t job, int fallback) const {
    const auto it = dir_of_job.find(job);
    return it == dir_of_job.end() ? fallback : it->second;
  }
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

// The limits when the spool's file system (seen through DIRFD) has little room:
// the combined log never takes the last RESERVE bytes (the outbox's) beyond a
// 1 MiB minimum.
LogLimits limits_for_space(int dirfd, std::uint64_t reserve);

// The combined log is created in JOB_DIR for the job's user (UID:GID, 0600) and
// filled by a child that has become that user: root never reads the task logs.
// MORE_DIRS: the directories of a heterogeneous job's other components, whose
// step records and logs join the combined log (their nodes are not waited for).
JobLogs collect_job_logs(const spool::DirFd& job_dir, const std::filesystem::path& job_dir_path,
                         const std::vector<std::string>& nodes, std::chrono::seconds wait, int restart,
                         std::uint32_t uid, std::uint32_t gid, const LogLimits& limits = {},
                         const std::vector<const spool::DirFd*>& more_dirs = {});

}  // namespace gpualert::epilog
