#pragma once
// The verdict into the job's accounting record: Slurm's database is the fleet store
// (`sacct -o SystemComment`, `gpualert report`), with no service of our own.
#include <cstdint>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::epilog {

// The GPUs the cited kernel records name (the faulted GPUs of an infra verdict).
std::vector<std::string> faulted_gpus(const classify::Verdict& v);

// Merges V's token into JOB's SystemComment (sacct reads what is there, sacctmgr -i
// writes it back, sacct checks it stuck). Returns what happened, for the admin log:
// the helper never fails a job over its accounting.
std::string record_in_accounting(std::uint32_t job, const classify::Verdict& v, const std::string& node,
                                 const std::vector<std::string>& job_gpus);

}  // namespace gpualert::epilog
