#pragma once
// The live watcher of one Slurm job on one node. The plugin's tee keeps, beside
// each task's log, a live sample (TASK.NODE.live: the latest lines, appended every
// few seconds); this loop reads those samples, follows the steps' slurmstepd
// processes in /proc, and decides the live conditions for the job as a whole:
// silence means no task printed anything; the loss is read from the task that
// prints it. It runs as the job's user (the caller dropped root) and only emits
// alerts; delivering them is the caller's job.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpualert/live/conditions.hpp"

namespace gpualert::live {

struct JobWatch {
  int dir = -1;            // the job's spool directory, opened before the drop (listing works on the fd)
  std::string node;        // only samples named for this node
  std::string end_marker;  // the watch ends when a file of this name appears in DIR
  Clock::time_point started;
  Clock::time_point give_up;  // the watch ends here whatever else happens
  std::chrono::milliseconds stall_after{30 * 60 * 1000};
  std::chrono::milliseconds interval{15000};
  std::chrono::milliseconds time_limit{0};
  std::chrono::milliseconds cancel_after_stall{0};  // "stall_cancel" fires (the caller ends the job); 0: never
  std::vector<std::filesystem::path> rule_files;
  std::string stepd_name = "slurmstepd";  // a sample's writer must be this process (empty: any)
  const char* proc = "/proc";
};

// What one round saw, for the caller's picture of the job (progress.json).
struct JobRound {
  Observation observation;
  std::size_t samples = 0;  // task samples followed
  std::vector<std::string> alerts;  // conditions fired so far
};

// Returns when the end marker appears, the directory goes away, or GIVE_UP passes.
// EMIT is called for each alert one look after it fired, when the job still runs
// then (a job that ends at once gets its verdict only); ROUND after every look.
// Besides the live conditions, a tee that died while its step runs (the lock it holds
// on its sample is free) is said at once as "capture_lost"; that task is not watched
// further.
void watch_job(const JobWatch& w, const std::function<void(const Alert&)>& emit,
               const std::function<void(const JobRound&)>& round = {});

// The slurmstepd pid in a task file's name ("batch.task0.p4242.node1.live"); 0 if none.
pid_t writer_pid(const std::string& name);

// Whether NAME is a live sample of NODE ("….NODE.live" or "….NODE.live.N").
bool is_sample_of(const std::string& name, const std::string& node);

}  // namespace gpualert::live
