#pragma once
// A batch script that slurmstepd could not start (its output file cannot be
// opened, its working directory is gone) reaches accounting as "killed by
// signal N": slurmstepd keeps its own error code (40xx) where a wait status
// belongs, and the low seven bits read as a signal number of 32 or more. The
// signals that end real jobs are below 32, and a started script leaves a step
// record, so together the two say "never started", and this finds out why by
// trying the paths Slurm had to open with the user's own rights.
#include <optional>
#include <string>
#include <vector>

#include "as_job_user.hpp"
#include "job_logs.hpp"
#include "slurm_accounting.hpp"

namespace gpualert::epilog {

struct LaunchFailure {
  std::string what;  // for the message: "Slurm could not open the output file /x as alice: Permission denied"
  int error = 0;     // errno of the cause; 0 when not found
};

// The "signal" of a batch step that never started, or nullopt.
std::optional<int> launch_error_signal(const JobAccounting& acct, const JobLogs& logs);

// Why Slurm could not start the batch script: WORKDIR and the OUTPUTS (relative
// ones under WORKDIR) checked as USER (NAME for the text). Call only when
// launch_error_signal said so.
LaunchFailure explain_launch_failure(int signal, const std::string& workdir, const std::vector<std::string>& outputs,
                                     const JobUser& user, const std::string& name);

}  // namespace gpualert::epilog
