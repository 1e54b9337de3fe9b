#include "job_env.hpp"

#include <cstdlib>
#include <string>

namespace gpualert::epilog {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

template <typename T>
std::optional<T> number(const char* name) {
  const std::string v = env(name);
  if (v.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long n = std::stoll(v, &used);
    if (used != v.size()) return std::nullopt;
    return static_cast<T>(n);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<JobEnv> read_job_env(std::optional<std::uint32_t> job_override) {
  JobEnv e;
  const auto job = job_override ? job_override : number<std::uint32_t>("SLURM_JOB_ID");
  if (!job) return std::nullopt;
  e.job = *job;
  e.uid = number<std::uint32_t>("SLURM_JOB_UID").value_or(0);
  e.gid = number<std::uint32_t>("SLURM_JOB_GID").value_or(0);
  e.user = env("SLURM_JOB_USER");
  e.node = env("SLURMD_NODENAME");
  e.nodelist = env("SLURM_JOB_NODELIST");
  if (e.nodelist.empty()) e.nodelist = env("SLURM_NODELIST");
  e.partition = env("SLURM_JOB_PARTITION");
  e.cluster = env("SLURM_CLUSTER_NAME");
  e.work_dir = env("SLURM_JOB_WORK_DIR");
  e.exit_code_raw = number<int>("SLURM_JOB_EXIT_CODE");
  e.exit_code2 = env("SLURM_JOB_EXIT_CODE2");
  e.derived_raw = number<int>("SLURM_JOB_DERIVED_EC");
  e.restart_count = number<int>("SLURM_JOB_RESTART_COUNT").value_or(0);
  if (!job_override) e.het_job = number<std::uint32_t>("SLURM_HET_JOB_ID");
  if (const char* g = std::getenv("SLURM_JOB_GPUS")) e.gpus = std::string(g).substr(0, 4096);
  e.std_out = env("SLURM_JOB_STDOUT");
  e.std_err = env("SLURM_JOB_STDERR");
  return e;
}

}  // namespace gpualert::epilog
