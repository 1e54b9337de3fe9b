#pragma once
// Catches the signals a job is usually sent (INT, TERM, HUP, QUIT, USR1, USR2)
// and CHLD, turning them into bytes on a self-pipe so the main loop can relay
// them to the child. Signals that were ignored when we started stay ignored,
// so the child inherits exactly the dispositions it would have had.
#include <csignal>
#include <vector>

namespace gpualert::runner {

struct CaughtSignal {
  int signo = 0;
  int code = 0;   // si_code: SI_KERNEL when the terminal sent it to the whole group
  int sender = 0; // si_pid
};

class SignalRelay {
 public:
  // Blocks the relayed signals; call install() next, then fork, then unblock().
  SignalRelay();
  ~SignalRelay();
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;

  void install();
  void unblock();
  // In the child between fork and exec: original dispositions and mask back.
  // Async-signal-safe.
  void restore_in_child() const;
  // Restores everything in this process (before mirroring the child's death).
  void restore();

  int fd() const { return pipe_[0]; }
  // Reads what arrived; never blocks.
  std::vector<CaughtSignal> drain();

  // Should a signal the wrapper caught be passed on? Not when the terminal sent
  // it: the child is in the same foreground process group and already has it.
  static bool should_forward(const CaughtSignal& s);
  static const std::vector<int>& relayed();

 private:
  int pipe_[2] = {-1, -1};
  sigset_t old_mask_{};
  struct sigaction old_actions_[65] = {};
  bool installed_[65] = {};
  struct sigaction old_pipe_{};
};

}  // namespace gpualert::runner
