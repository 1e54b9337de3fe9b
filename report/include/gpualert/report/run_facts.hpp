#pragma once
// What is known about one run besides its verdict: shared by `gpualert run`
// and (later) the Slurm helper, which adds job facts as extra rows.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpualert::report {

struct RunFacts {
  std::vector<std::string> command;
  std::string cwd, host, user;
  std::chrono::system_clock::time_point started, ended;
  std::chrono::milliseconds duration{0};
  std::optional<int> wait_status;  // raw waitpid status when known
  bool exec_failed = false;
  std::filesystem::path run_dir, log;
  std::uint64_t log_bytes = 0;
  std::vector<std::string> problems;  // capture notes, config errors: said in the body
  std::vector<std::pair<std::string, std::string>> extra;  // e.g. {"Slurm job", "1234 (train)"}
};

// "train.py" for `python train.py --lr 1`, "pkg.mod" for `python -m pkg.mod`,
// else the program's base name. Untrusted: sanitised to one short line.
std::string job_label(const std::vector<std::string>& command);

}  // namespace gpualert::report
