#pragma once
// The facts slurmd puts in the epilog's environment (see the Slurm prolog/epilog docs).
#include <cstdint>
#include <optional>
#include <string>

namespace gpualert::epilog {

struct JobEnv {
  std::uint32_t job = 0;
  std::uint32_t uid = 0, gid = 0;
  std::string user, node, nodelist, partition, cluster, work_dir;
  std::optional<int> exit_code_raw;     // SLURM_JOB_EXIT_CODE: raw wait status of the batch script
  std::string exit_code2;               // SLURM_JOB_EXIT_CODE2: "exit:signal"
  std::optional<int> derived_raw;       // SLURM_JOB_DERIVED_EC
  int restart_count = 0;
  // SLURM_HET_JOB_ID: a heterogeneous job's leader (== job for the leader itself).
  std::optional<std::uint32_t> het_job;
  // SLURM_JOB_STDOUT / SLURM_JOB_STDERR: the batch script's output paths (the owner's words).
  std::string std_out, std_err;
  // SLURM_JOB_GPUS: the gres indices of the job's GPUs on this node ("0,2"); nullopt when
  // Slurm gave none (no gpu gres: the job may use every GPU of the node).
  std::optional<std::string> gpus;
};

// Reads the environment; JOB_OVERRIDE (from --job) wins. nullopt without a job id.
std::optional<JobEnv> read_job_env(std::optional<std::uint32_t> job_override);

}  // namespace gpualert::epilog
