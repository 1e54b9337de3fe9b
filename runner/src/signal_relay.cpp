#include "gpualert/runner/signal_relay.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpualert::runner {
namespace {

int g_write_fd = -1;  // the handler's only state; set before handlers are installed

void on_signal(int signo, siginfo_t* info, void*) {
  const int saved = errno;
  CaughtSignal s;
  s.signo = signo;
  s.code = info ? info->si_code : 0;
  s.sender = info ? info->si_pid : 0;
  // A full pipe only loses duplicates of signals already queued.
  [[maybe_unused]] const ssize_t n = ::write(g_write_fd, &s, sizeof s);
  errno = saved;
}

}  // namespace

const std::vector<int>& SignalRelay::relayed() {
  static const std::vector<int> sigs = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD, SIGWINCH};
  return sigs;
}

SignalRelay::SignalRelay() {
  if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
  g_write_fd = pipe_[1];
  sigset_t block;
  sigemptyset(&block);
  for (int s : relayed()) sigaddset(&block, s);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask_);
}

SignalRelay::~SignalRelay() {
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

void SignalRelay::install() {
  for (int s : relayed()) {
    struct sigaction cur {};
    ::sigaction(s, nullptr, &cur);
    if (cur.sa_handler == SIG_IGN && s != SIGCHLD) continue;  // inherited "ignore" is kept for the child
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: a stalled write must yield to a signal
    sigemptyset(&sa.sa_mask);
    ::sigaction(s, &sa, &old_actions_[s]);
    installed_[s] = true;
  }
  // A closed reader of our stdout must not kill the wrapper; the child is told instead.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, &old_pipe_);
}

void SignalRelay::unblock() { ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr); }

void SignalRelay::restore_in_child() const {
  for (int s : relayed())
    if (installed_[s]) ::sigaction(s, &old_actions_[s], nullptr);
  ::sigaction(SIGPIPE, &old_pipe_, nullptr);
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

void SignalRelay::restore() {
  for (int s : relayed())
    if (installed_[s]) {
      ::sigaction(s, &old_actions_[s], nullptr);
      installed_[s] = false;
    }
  ::sigaction(SIGPIPE, &old_pipe_, nullptr);
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

std::vector<CaughtSignal> SignalRelay::drain() {
  std::vector<CaughtSignal> out;
  CaughtSignal s;
  while (::read(pipe_[0], &s, sizeof s) == static_cast<ssize_t>(sizeof s)) out.push_back(s);
  return out;
}

bool SignalRelay::should_forward(const CaughtSignal& s) {
  if (s.signo == SIGCHLD) return false;
  return s.code != SI_KERNEL;
}

}  // namespace gpualert::runner
