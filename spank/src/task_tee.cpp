#include "task_tee.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "gpualert/runner/log_writer.hpp"
#include "gpualert/runner/tee.hpp"

namespace gpualert::spank {
namespace {

// The tee itself: a grandchild of the task in its own session, so the user's
// program can neither reap it (it is not its child) nor signal it with its
// process group. It exits when the task's end of both pipes closes.
[[noreturn]] void run_tee(int out_r, int err_r, int log_fd, int streams_fd) {
  // SIGTERM/SIGINT/SIGHUP go to the whole step at cancel time; the tee must
  // outlive the task long enough to forward its last bytes (EOF ends it; a
  // step-end SIGKILL still can).
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE}) ::signal(s, SIG_IGN);
  // Keep only what the tee needs: the pipes, the task's real stdout/stderr, the log.
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != out_r && fd != err_r && fd != log_fd && fd != streams_fd) ::close(fd);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) ::dup2(null, STDIN_FILENO);
  {
    runner::LogWriter log(log_fd, streams_fd);
    runner::TeeSource src[2];
    src[0] = {out_r, STDOUT_FILENO, runner::StreamTag::Out, true, false};
    src[1] = {err_r, STDERR_FILENO, runner::StreamTag::Err, true, false};
    runner::tee_until_eof(src, 2, log);
    log.finish();
  }
  ::_exit(0);
}

}  // namespace

bool start_task_tee(int log_fd, int streams_fd) {
  int outp[2], errp[2];
  if (::pipe2(outp, O_CLOEXEC) != 0) return false;
  if (::pipe2(errp, O_CLOEXEC) != 0) {
    ::close(outp[0]);
    ::close(outp[1]);
    return false;
  }
  ::fcntl(outp[0], F_SETPIPE_SZ, 1 << 20);
  ::fcntl(errp[0], F_SETPIPE_SZ, 1 << 20);
  const pid_t mid = ::fork();
  if (mid < 0) {
    for (int fd : {outp[0], outp[1], errp[0], errp[1]}) ::close(fd);
    return false;
  }
  if (mid == 0) {
    ::setsid();
    const pid_t tee = ::fork();
    if (tee != 0) ::_exit(tee < 0 ? 1 : 0);  // the middle process only detaches the tee
    ::close(outp[1]);
    ::close(errp[1]);
    run_tee(outp[0], errp[0], log_fd, streams_fd);
  }
  int st = 0;
  while (::waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
  ::close(outp[0]);
  ::close(errp[0]);
  ::close(log_fd);
  if (streams_fd >= 0) ::close(streams_fd);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    ::close(outp[1]);
    ::close(errp[1]);
    return false;
  }
  // From here the task writes into the tee. dup2 clears close-on-exec on 1 and 2.
  ::dup2(outp[1], STDOUT_FILENO);
  ::dup2(errp[1], STDERR_FILENO);
  ::close(outp[1]);
  ::close(errp[1]);
  return true;
}

}  // namespace gpualert::spank
