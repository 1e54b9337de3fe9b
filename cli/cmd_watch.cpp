// `gpualert-core watch`: the live watcher beside a running command (started by the
// launcher, not by users).
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "gpualert/live/watcher.hpp"
#include "live_watcher_launch.hpp"
#include "post_run_wire.hpp"

namespace gpualert::cli {

int watch_command(int input_fd, int lifeline_fd) {
  const std::string record = read_handed_over(input_fd);
  try {
    const PostRunInput in = decode_post_run(record);
    live::WatchInput w;
    w.facts = in.facts;
    w.settings = load_settings(in.config_file, in.flags).settings();  // the launcher's own
    w.pid = in.child_pid;
    w.lifeline = lifeline_fd;
    return live::watch(w);
  } catch (const std::exception& e) {
    std::cerr << "gpualert watch: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace gpualert::cli
