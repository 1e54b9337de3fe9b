#pragma once
// What slurmctld still remembers of a finished job (for MinJobAge), read with
// `scontrol -o show job`: its --mail-user, and Restarts=N (more than this run's
// SLURM_RESTART_COUNT: the job has run again since).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpualert::epilog {

struct ControllerView {
  std::vector<std::string> mail_user;  // empty: none given, or not trusted
  std::optional<int> restarts;         // nullopt: unknown
  // The batch script's output files as Slurm resolved them ("" = unknown). The
  // owner's own text, used only for checks made with the owner's rights.
  std::string std_out, std_err;
  // A heterogeneous job's leader id and this component's offset (nullopt: not one).
  std::optional<std::uint32_t> het_job_id, het_job_offset;
  std::string het_job_id_set;  // "699-700"
  // An array task's array and index ("65", "19"): users know the task as 65_19.
  std::string array_job_id, array_task_id;
  // --mail-type included ARRAY_TASKS: the owner wants each task's own message (Slurm's
  // convention); otherwise an array gets its first failure and then one digest.
  bool array_tasks_mail = false;
  // For the live watcher of a running job: "01:00:00" / "UNLIMITED", the allocated
  // nodes ("n[1-4]"), and the job's name (the owner's words: a label only). "" = unknown.
  std::string time_limit, node_list, job_name;
};

// Reads one job record of `scontrol -o show job ID`. The owner writes JobName,
// Command, WorkDir, Comment, StdOut... freely, spaces and "Key=" text included, on
// both sides of Restarts=, so no reading of the text tells a forged " Restarts=9"
// from Slurm's own. Slurm's own is always there, though: a key found more than
// once is unknown (nullopt / no address), never guessed.
ControllerView parse_controller_view(const std::string& scontrol_output);

// Runs scontrol; an empty view when slurmctld has forgotten the job or did not answer.
ControllerView controller_view(std::uint32_t job);

// "n[1-3],gpu7" as names in Slurm's order (scontrol show hostnames); the list itself
// when scontrol cannot say.
std::vector<std::string> expand_nodelist(const std::string& list);

}  // namespace gpualert::epilog
