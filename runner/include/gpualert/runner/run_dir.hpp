#pragma once
// The run directory: made (mode 0700) and its log created before the child
// exists, so even a crash at exec leaves a record; made durable (fsync of the
// log and the directory) either at once or, to keep the disk out of the job's
// launch, by the wrapper while the child execs.
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

  // fsyncs the log and the directory; throws std::system_error.
  void make_durable() const;
};

// EXPLICIT (from --run-dir) is used as given; otherwise a fresh directory
// STATE_DIR/runs/<UTC time>-<host>-<pid>. When that fails, falls back to
// $TMPDIR/gpualert-<uid>/runs/...; std::nullopt only when no place at all can
// hold a log (the caller then runs the command uncaptured and says so).
// Files left in EXPLICIT by an earlier run are moved to EXPLICIT/previous-<time>/.
// DURABLE_NOW: fsync before returning; otherwise the caller calls make_durable().
std::optional<RunDir> prepare_run_dir(const std::optional<std::filesystem::path>& explicit_dir,
                                      const std::filesystem::path& state_dir,
                                      std::vector<std::string>& errors, bool durable_now = true);

}  // namespace gpualert::runner
