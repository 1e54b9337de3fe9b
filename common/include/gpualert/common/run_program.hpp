#pragma once
// Runs a program (no shell) and captures its stdout, bounded in time and size.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpualert {

struct ProgramOutput {
  int wait_status = 0;
  std::string out;
  std::string err;
};

// nullopt when it could not be started or did not finish within TIMEOUT (then it is killed).
// Its stdin is STDIN_FD (e.g. a message for sendmail), or /dev/null when that is -1.
std::optional<ProgramOutput> run_program(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                         std::size_t max_bytes = 1 << 20, int stdin_fd = -1);

}  // namespace gpualert
