#pragma once
// The launcher's side of live alerts: `gpualert-core watch` started beside the command
// (never in its way: no descriptor of the job's, no terminal output, no terminal
// signals), and stopped once the command has ended.
#include <sys/types.h>

#include <chrono>

#include "post_run.hpp"

namespace gpualert::cli {

struct WatcherHandle {
  pid_t pid = -1;
  int lifeline = -1;  // our end: closing it tells the watcher to stop
  // Its first look comes one interval after the start: before that it has sent nothing.
  std::chrono::steady_clock::time_point first_look{};
};

// Nothing happens (pid -1) when live alerts are off or there is no run directory.
WatcherHandle start_watcher(const PostRunInput& in, pid_t command);

// Closes the lifeline and waits a little for the watcher's last look; then it is stopped.
void stop_watcher(WatcherHandle& w);

// The watcher itself, in gpualert-core: reads the record from INPUT_FD.
int watch_command(int input_fd, int lifeline_fd);

}  // namespace gpualert::cli
