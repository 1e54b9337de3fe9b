#pragma once
// What the plugin knows about one step on one node when it ends: each task's
// raw wait status and where its output was captured. Written atomically as
// step-<step>.<node>.json; read back by the epilog helper.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpualert::spool {

struct TaskRecord {
  std::uint32_t task = 0;  // global task id (the rank for srun steps)
  int pid = 0;
  std::optional<int> wait_status;  // raw wait(2) status from task_exit
  std::string log;                 // file name in the job directory
  std::string streams;
};

struct StepRecord {
  std::uint32_t job = 0;
  std::string step;  // "0", "1", "batch", "extern"
  std::string node;
  int restart = 0;  // SLURM_RESTART_COUNT: a requeued job runs again under the same id
  std::uint32_t uid = 0, gid = 0;
  std::string started, ended;      // ISO-8601 UTC
  std::vector<std::string> to;     // from --gpualert=a@b,c@d
  std::vector<TaskRecord> tasks;
};

// "batch" for SLURM_BATCH_SCRIPT, "extern" for SLURM_EXTERN_CONT, else the number.
std::string step_name(std::uint32_t stepid);
// RUN_TAG tells runs of a requeued job apart (the plugin uses the step's
// slurmstepd pid, which the task and slurmstepd both know); 0 = no tag.
std::string step_file_name(const std::string& step, const std::string& node, long run_tag = 0);
// Global task ids are unique within a step across all its nodes, so the name
// needs no node (which a task cannot always learn reliably before it execs).
std::string task_log_name(const std::string& step, std::uint32_t task, long run_tag = 0);

nlohmann::json to_json(const StepRecord& r);
// Throws nlohmann::json::exception on a malformed record.
StepRecord step_from_json(const nlohmann::json& j);

}  // namespace gpualert::spool
