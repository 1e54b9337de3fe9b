#pragma once
// The run directory: made (mode 0700) and its log created and fsynced before the
// child exists, so even a crash at exec leaves a durable record.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpualert::runner {

struct RunDir {
  std::filesystem::path dir;
  std::filesystem::path log;      // output.log: every byte the child wrote, in arrival order
  std::filesystem::path streams;  // output.streams: which byte ranges came from stdout/stderr
  std::filesystem::path run_json;
  std::filesystem::path verdict_json;
  int log_fd = -1;      // open for writing, O_CLOEXEC
  int streams_fd = -1;  // open for writing, O_CLOEXEC
  std::vector<std::string> warnings;  // e.g. "could not use X, fell back to Y"
};

// EXPLICIT (from --run-dir) is used as given; otherwise a fresh directory
// STATE_DIR/runs/<UTC time>-<host>-<pid>. When that fails, falls back to
// $TMPDIR/gpualert-<uid>/runs/...; std::nullopt only when no place at all can
// hold a log (the caller then runs the command uncaptured and says so).
// Files left in EXPLICIT by an earlier run are moved to EXPLICIT/previous-<time>/.
std::optional<RunDir> prepare_run_dir(const std::optional<std::filesystem::path>& explicit_dir,
                                      const std::filesystem::path& state_dir,
                                      std::vector<std::string>& errors);

}  // namespace gpualert::runner
