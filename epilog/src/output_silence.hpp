#pragma once
// How long a Slurm job printed nothing before it ended, for the classifier's
// hang-vs-timeout decision (classify::RunStatus::seconds_silent_before_end).
// `gpualert run` reads this from its capture timeline; under Slurm the helper
// has no timeline of its own, but each task log is appended to by the tee as
// the task prints, so the newest modification time of the reported run's task
// logs is the time of its last output. Without it, a job that stopped printing
// and was then killed at its time limit would read as a plain timeout.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/spool/spool_dir.hpp"
#include "job_logs.hpp"

namespace gpualert::epilog {

struct TaskLogStat {
  std::chrono::system_clock::time_point mtime;
  std::uint64_t size = 0;
};

struct OutputSilence {
  std::optional<double> seconds;  // unset when it cannot be told
  std::string note;               // how it was decided, or why not (for the helper's log)
};

// The pure part. ENDED and STARTED come from accounting (End, Start); LOGS are
// the task logs of the run being reported. The last output is the newest
// mtime of a log that holds any output; if every log is empty, the job's start
// stands in for it, but only when the job demonstrably ran (a start before the
// end). Output stamped after the end (accounting has whole seconds) counts as
// no silence at all.
OutputSilence output_silence(std::optional<std::chrono::system_clock::time_point> ended,
                             std::optional<std::chrono::system_clock::time_point> started,
                             const std::vector<TaskLogStat>& logs);

// Stats the task logs that collect_job_logs picked (the newest run per step
// and node) through the job directory's descriptor, never following a link:
// the helper is root and users can write into the spool. A name that is not
// a regular file is skipped and reported in PROBLEMS.
std::vector<TaskLogStat> stat_task_logs(const spool::DirFd& dir, const JobLogs& logs,
                                        std::vector<std::string>& problems);

}  // namespace gpualert::epilog
