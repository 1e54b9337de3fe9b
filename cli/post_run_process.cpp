// The launcher's side of the diagnosis: hand the run to gpualert-core, wait for it
// within the deadline, stop it on the deadline or on the user's signal.
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "core_program.hpp"
#include "gpualert/common/wait_status.hpp"
#include "post_run.hpp"
#include "post_run_wire.hpp"

namespace gpualert::cli {
namespace {

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void post_run_isolated(const PostRunInput& in, runner::SignalRelay& relay) {
  std::cout.flush();
  // The record goes in an unnamed memory file: any size, nothing on disk, read by
  // gpualert-core from the descriptor it inherits.
  const std::string record = encode_post_run(in);
  const int fd = ::memfd_create("gpualert-post-run", MFD_CLOEXEC);
  if (fd < 0 || !write_all(fd, record) || ::lseek(fd, 0, SEEK_SET) != 0) {
    std::cerr << "gpualert: cannot hand the run over for diagnosis (" << std::strerror(errno) << "); the log is at "
              << in.facts.log.string() << "\n";
    if (fd >= 0) ::close(fd);
    return;
  }
  const std::string core = core_program();
  const std::string fd_arg = std::to_string(fd);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd);
    std::cerr << "gpualert: cannot fork to diagnose the run; the log is at " << in.facts.log.string() << "\n";
    return;
  }
  if (pid == 0) {
    relay.restore();  // Ctrl-C during a slow send should stop the sender, as users expect
    ::fcntl(fd, F_SETFD, 0);  // kept across exec
    const char* args[] = {"gpualert", "post-run", "--input-fd", fd_arg.c_str(), nullptr};
    ::execv(core.c_str(), const_cast<char* const*>(args));
    const std::string msg = "gpualert: cannot start " + core + " to diagnose the run: " + std::strerror(errno) + "\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(fd);
  const auto deadline = std::chrono::steady_clock::now() + in.settings.send_timeout + kWorkAllowance;
  for (;;) {
    int st = 0;
    const pid_t w = ::waitpid(pid, &st, WNOHANG);
    if (w == pid) {
      if (WIFSIGNALED(st))
        std::cerr << "gpualert: the diagnosis process died (" << describe_status(st) << "); the log is at "
                  << in.facts.log.string() << "\n";
      return;
    }
    if (w < 0 && errno != EINTR) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      // Left alive it would hold our stdout/stderr open for whoever waits on them.
      // The message, if built, is already in the outbox: it was stored before sending.
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      std::cerr << "gpualert: diagnosis and delivery overran their deadline and were stopped; anything "
                   "queued stays in the outbox; the log is at "
                << in.facts.log.string() << "\n";
      return;
    }
    pollfd p{relay.fd(), POLLIN, 0};
    ::poll(&p, 1, 50);
    for (const auto& s : relay.drain()) {
      if (s.signo == SIGINT || s.signo == SIGTERM || s.signo == SIGHUP) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        std::cerr << "gpualert: " << signal_name(s.signo)
                  << " while diagnosing; stopped (anything queued stays in the outbox)\n";
        return;
      }
    }
  }
}

}  // namespace gpualert::cli
