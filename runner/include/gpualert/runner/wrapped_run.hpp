#pragma once
// Runs a command exactly as it would run bare, teeing its stdout and stderr
// into the durable log and relaying signals to it.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "gpualert/runner/log_writer.hpp"
#include "gpualert/runner/signal_relay.hpp"

namespace gpualert::runner {

struct WrapResult {
  pid_t pid = -1;
  int wait_status = 0;  // raw waitpid() status of the child
  bool exec_failed = false;
  std::string exec_error;  // "cannot execute 'x': No such file or directory"
  std::chrono::system_clock::time_point started, ended;
  std::chrono::milliseconds duration{0};
  std::vector<std::string> forwarded;  // signals relayed to the child, e.g. "SIGTERM"
  std::vector<std::string> notes;      // e.g. "stdout reader went away; the child saw EPIPE"
};

// With LOG == nullptr the child inherits our stdout/stderr directly (no capture).
// RELAY must have been constructed and installed; it is unblocked inside.
// PTY: a stream that leads to a terminal reaches the program through a pty, so
// it still sees a terminal (see ChildOutput).
// AFTER_FORK runs in the wrapper as soon as the child exists (its pid given), while it
// execs: work that must happen for every run but need not delay the job's start.
WrapResult run_wrapped(const std::vector<std::string>& argv, LogWriter* log, SignalRelay& relay, bool pty = true,
                       const std::function<void(pid_t)>& after_fork = {});

}  // namespace gpualert::runner
