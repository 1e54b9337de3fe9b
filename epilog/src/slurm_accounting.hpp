#pragma once
// The job's record in Slurm accounting, read with `sacct -P` once the job has
// left COMPLETING (during the epilog it has not: TIMEOUT and CANCELLED both
// still look like a plain SIGTERM to the tasks).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpualert::epilog {

struct StepAccounting {
  std::string id;  // "123.batch", "123.0"
  std::string name, state, exit_code;
};

struct JobAccounting {
  bool available = false;  // sacct answered at all
  bool final = false;      // the state is a final one
  bool requeued = false;   // after this run's epilog the job is pending/running again
  std::string error;       // why not available / not final
  std::string job_id, name, state, state_detail, exit_code, derived_exit_code;
  std::string elapsed, timelimit, nodelist, partition, user, start, end, workdir;
  std::vector<StepAccounting> steps;       // a heterogeneous job's: every component's
  std::vector<std::uint32_t> components;  // a heterogeneous leader's other components
};

// Parses `sacct -n -P --delimiter=DELIMITER -o JobID,JobName,State,ExitCode,
// DerivedExitCode,Elapsed,Timelimit,NodeList,Partition,User,Start,End,WorkDir`
// output for JOB. The job's owner chooses JobName and WorkDir (any byte, newlines
// too), so query_job passes an unguessable DELIMITER: then no name can end a field
// or start a record. Output that does not split into whole records is rejected.
// HETEROGENEOUS: JOB leads a heterogeneous job, whose other components (whole
// job records in the answer) and their steps then count too; otherwise no other
// job's record does.
JobAccounting parse_sacct(const std::string& text, const std::string& job, const std::string& delimiter = "|",
                          bool heterogeneous = false);

// A fresh random field delimiter for one sacct call.
std::string sacct_delimiter();

bool is_final_state(const std::string& state);

// Polls sacct until the state is final or MAX_WAIT passes. REQUEUED_SINCE is
// asked on every round (e.g. slurmctld's restart count): when it says yes, the
// job has run again and polling stops with `requeued` set.
JobAccounting query_job(std::uint32_t job, std::chrono::seconds max_wait,
                        const std::function<bool()>& requeued_since = {}, bool heterogeneous = false);

}  // namespace gpualert::epilog
