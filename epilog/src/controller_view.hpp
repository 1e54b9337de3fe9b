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
};

// Reads one job record of `scontrol -o show job ID`. The owner writes JobName,
// Command, WorkDir, Comment, StdOut... freely, spaces and "Key=" text included, on
// both sides of Restarts=, so no reading of the text tells a forged " Restarts=9"
// from Slurm's own. Slurm's own is always there, though: a key found more than
// once is unknown (nullopt / no address), never guessed.
ControllerView parse_controller_view(const std::string& scontrol_output);

// Runs scontrol; an empty view when slurmctld has forgotten the job or did not answer.
ControllerView controller_view(std::uint32_t job);

}  // namespace gpualert::epilog
