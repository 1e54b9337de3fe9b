#include "gpualert/common/run_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace gpualert {

std::optional<ProgramOutput> run_program(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                         std::size_t max_bytes, int stdin_fd) {
  if (argv.empty()) return std::nullopt;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return std::nullopt;
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    // Close-on-exec: the tool gets its input (or /dev/null) as its stdin and no other copy of it.
    const int in = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in > 0) ::dup2(in, 0);
    if (in == 0) ::fcntl(0, F_SETFD, 0);
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  ProgramOutput r;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool open[2] = {true, true};
  int fds[2] = {out[0], err[0]};
  std::string* dst[2] = {&r.out, &r.err};
  bool timed_out = false;
  char buf[8192];
  while (open[0] || open[1]) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p[2];
    int map[2];
    nfds_t n = 0;
    for (int i = 0; i < 2; ++i)
      if (open[i]) {
        map[n] = i;
        p[n++] = {fds[i], POLLIN, 0};
      }
    if (::poll(p, n, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (nfds_t k = 0; k < n; ++k) {
      if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int i = map[k];
      const ssize_t got = ::read(fds[i], buf, sizeof buf);
      if (got <= 0) {
        open[i] = false;
        continue;
      }
      if (dst[i]->size() < max_bytes) dst[i]->append(buf, static_cast<std::size_t>(got));
    }
  }
  ::close(out[0]);
  ::close(err[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  while (::waitpid(pid, &r.wait_status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return std::nullopt;
  return r;
}

}  // namespace gpualert
