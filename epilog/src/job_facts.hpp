#pragma once
// The run facts of a Slurm job, for the message: who, where, how it ended per
// step, and the exit status the classifier should weigh.
#include <optional>

#include "gpualert/report/run_facts.hpp"
#include "job_env.hpp"
#include "job_logs.hpp"
#include "slurm_accounting.hpp"

namespace gpualert::epilog {

struct JobFacts {
  report::RunFacts facts;
  std::optional<int> exit_code;  // signed (negative = signal) of the deciding task
};

JobFacts job_facts(const JobEnv& env, const JobAccounting& acct, const JobLogs& logs);

// "1-02:03:04", "02:03:04", "03:04" -> milliseconds.
std::optional<std::chrono::milliseconds> parse_elapsed(const std::string& s);

}  // namespace gpualert::epilog
