#include "task_tee.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "capped_log.hpp"
#include "live_sample.hpp"
#include "gpualert/runner/destination.hpp"
#include "gpualert/runner/log_writer.hpp"
#include "gpualert/runner/tee.hpp"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434  // the same number on every architecture
#endif

namespace gpualert::spank {
namespace {

using runner::StreamTag;

// After slurmstepd is gone, how long the tee keeps reading what is already in
// the pipes before it stops.
constexpr auto kDrainFor = std::chrono::seconds(1);

struct Stream {
  int fd = -1;   // read end of the pipe the task writes into
  int out = -1;  // the task's real fd (1 or 2) in the tee
  StreamTag tag = StreamTag::Out;
  const char* name = "";
  bool open = false;
};

enum class Got { Data, Nothing, End };

// One read, forwarded to the real fd first, then to the log.
Got pump(Stream& s, CappedLog& log, LiveSample& sample, std::string& buf, std::vector<std::string>& notes) {
  ssize_t got;
  do got = ::read(s.fd, buf.data(), buf.size());
  while (got < 0 && errno == EINTR);
  if (got < 0 && errno == EAGAIN) return Got::Nothing;
  const std::string_view chunk(buf.data(), got > 0 ? static_cast<std::size_t>(got) : 0);
  const bool out_ok = got > 0 && runner::write_out(s.out, chunk, {});
  if (got > 0 && !out_ok)
    notes.push_back(std::string("[gpualert] ") + s.name + " could not be written (" + std::strerror(errno) +
                    "); the program's pipe was closed so it sees the same error\n");
  log.append(s.tag, chunk);
  sample.feed(chunk, LiveSample::Clock::now());
  if (out_ok) return Got::Data;
  ::close(s.fd);  // EOF, read error, or a broken real fd: the program gets EPIPE next
  s.open = false;
  return Got::End;
}

// The step is over: take what is already in the pipes, briefly, then stop even
// if some process outside the step still holds a write end.
void drain(Stream* s, int n, CappedLog& log, LiveSample& sample, std::string& buf, std::vector<std::string>& notes) {
  const auto until = std::chrono::steady_clock::now() + kDrainFor;
  for (int i = 0; i < n; ++i)
    if (s[i].open) ::fcntl(s[i].fd, F_SETFL, ::fcntl(s[i].fd, F_GETFL) | O_NONBLOCK);
  for (bool more = true; more && std::chrono::steady_clock::now() < until;) {
    more = false;
    for (int i = 0; i < n; ++i)
      if (s[i].open && pump(s[i], log, sample, buf, notes) == Got::Data) more = true;
  }
  for (int i = 0; i < n; ++i)
    if (s[i].open)
      notes.push_back(std::string("[gpualert] the step ended while a process still held ") + s[i].name +
                      " open: later output is not in this log\n");
}

// Copies until every stream is at EOF or, when STEPD >= 0, slurmstepd exits.
void copy(Stream* s, int n, int stepd, CappedLog& log, LiveSample& sample, std::vector<std::string>& notes) {
  std::string buf(256 * 1024, '\0');
  for (;;) {
    pollfd fds[3];
    int map[2];
    nfds_t k = 0;
    for (int i = 0; i < n; ++i)
      if (s[i].open) {
        map[k] = i;
        fds[k++] = {s[i].fd, POLLIN, 0};
      }
    if (k == 0) return;
    const nfds_t streams = k;
    if (stepd >= 0) fds[k++] = {stepd, POLLIN, 0};
    // Sleeps until output, or until the live sample's pending lines are due.
    const int got = ::poll(fds, k, sample.wait_ms(LiveSample::Clock::now()));
    if (got < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (got == 0) sample.flush(LiveSample::Clock::now());
    for (nfds_t j = 0; j < streams; ++j)
      if (fds[j].revents & (POLLIN | POLLHUP | POLLERR)) pump(s[map[j]], log, sample, buf, notes);
    if (stepd >= 0 && fds[streams].revents != 0) {
      drain(s, n, log, sample, buf, notes);
      return;
    }
  }
}

// The free space of the spool's file system, as the log's descriptor sees it.
SpaceGuard spool_guard(int log_fd, std::uint64_t floor) {
  SpaceGuard g;
  struct statvfs v {};
  if (::fstatvfs(log_fd, &v) != 0) return g;  // unknown: no guard
  const std::uint64_t size = static_cast<std::uint64_t>(v.f_blocks) * v.f_frsize;
  g.floor = floor ? floor : std::min<std::uint64_t>(64ULL << 20, size / 4);
  g.free_bytes = [log_fd] {
    struct statvfs now {};
    if (::fstatvfs(log_fd, &now) != 0) return ~std::uint64_t{0};
    return static_cast<std::uint64_t>(now.f_bavail) * now.f_frsize;
  };
  return g;
}

// The tee itself: a grandchild of the task in its own session, so the user's
// program can neither reap it (it is not its child) nor signal it with its
// process group. It ends at EOF on every pipe or when slurmstepd exits.
[[noreturn]] void run_tee(Stream* s, int n, int stepd, int log_fd, int streams_fd, int live_fd, std::uint64_t head,
                          std::uint64_t tail, std::uint64_t floor, const std::vector<std::string>& first_notes) {
  // SIGTERM/SIGINT/SIGHUP go to the whole step at cancel time; the tee must
  // outlive the task long enough to forward its last bytes (EOF ends it; a
  // step-end SIGKILL still can, and then the log holds the head only).
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE}) ::signal(sig, SIG_IGN);
  // Its own name, so that ps shows an admin what it is (it was forked from slurmstepd).
  ::prctl(PR_SET_NAME, "gpualert-tee", 0, 0, 0);
  // Held for the tee's life: the live watcher tells a tee that died from one that
  // runs by whether it can take this lock.
  if (live_fd >= 0) ::flock(live_fd, LOCK_SH);
  // Keep only what the tee needs: the pipes, slurmstepd's pidfd, the log.
  for (int fd = 3; fd < 1024; ++fd) {
    bool keep = fd == log_fd || fd == streams_fd || fd == live_fd || fd == stepd;
    for (int i = 0; i < n; ++i) keep = keep || fd == s[i].fd;
    if (!keep) ::close(fd);
  }
  // Only the real fds being copied to stay; a terminal the tee does not copy
  // must not be held open by it after the step.
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    bool used = false;
    for (int i = 0; i < n; ++i) used = used || s[i].out == fd;
    if (!used && null >= 0) ::dup2(null, fd);
  }
  if (null > STDERR_FILENO) ::close(null);
  {
    runner::LogWriter log(log_fd, streams_fd);
    for (const auto& note : first_notes) log.append(StreamTag::Gpualert, note);
    std::vector<std::string> notes;
    CappedLog capped(log, head, tail, spool_guard(log_fd, floor));
    LiveSample sample(live_fd);
    copy(s, n, stepd, capped, sample, notes);
    sample.flush(LiveSample::Clock::now(), true);
    // A tee that ends by itself (EOF, the step's end) says so: its sample turns read-only.
    if (live_fd >= 0) ::fchmod(live_fd, 0400);
    capped.finish();
    for (const auto& note : notes) log.append(StreamTag::Gpualert, note);
    log.finish();
  }
  ::_exit(0);
}

void close_all(std::initializer_list<int> fds) {
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
}

}  // namespace

bool start_task_tee(int log_fd, int streams_fd, int live_fd, std::uint64_t head_bytes, std::uint64_t tail_bytes,
                    std::uint64_t spool_floor) {
  const bool tty[2] = {::isatty(STDOUT_FILENO) == 1, ::isatty(STDERR_FILENO) == 1};
  std::vector<std::string> notes;
  const char* names[2] = {"stdout", "stderr"};
  for (int i = 0; i < 2; ++i)
    if (tty[i])
      notes.push_back(std::string("[gpualert] ") + names[i] + " is a terminal: it was left as it is and not captured\n");
  if (tty[0] && tty[1]) {  // nothing to copy: no tee process, just say so
    runner::LogWriter log(log_fd, streams_fd);
    for (const auto& note : notes) log.append(StreamTag::Gpualert, note);
    log.finish();
    if (live_fd >= 0) ::close(live_fd);
    return true;
  }
  // One open file behind both fds (-o without -e, 2>&1): one pipe keeps the
  // program's order exactly; two pipes would let the tee interleave them.
  const bool shared = !tty[0] && !tty[1] && runner::one_destination(STDOUT_FILENO, STDERR_FILENO);
  if (shared) notes.push_back("[gpualert] stdout and stderr share one file: captured as one stream\n");

  Stream s[2];
  int wr[2] = {-1, -1};  // pipe write ends, to become fd 1 / fd 2 of the task
  int n = 0;
  for (int i = 0; i < (shared ? 1 : 2); ++i) {
    if (tty[i]) continue;
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) {
      const int e = errno;
      close_all({s[0].fd, wr[0], log_fd, streams_fd, live_fd});
      errno = e;
      return false;
    }
    ::fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
    s[n] = {p[0], STDOUT_FILENO + i, i == 0 ? StreamTag::Out : StreamTag::Err, shared ? "stdout and stderr" : names[i],
            true};
    wr[i] = p[1];
    ++n;
  }
  // The task's parent is the step's slurmstepd. When it exits the step is over,
  // even if a daemon the job left behind still holds the pipes. Without a pidfd
  // (kernel < 5.3) the tee runs until EOF, as before.
  const int stepd = static_cast<int>(::syscall(SYS_pidfd_open, ::getppid(), 0));

  const pid_t mid = ::fork();
  if (mid == 0) {
    ::setsid();
    const pid_t tee = ::fork();
    if (tee != 0) ::_exit(tee < 0 ? 1 : 0);  // the middle process only detaches the tee
    close_all({wr[0], wr[1]});
    run_tee(s, n, stepd, log_fd, streams_fd, live_fd, head_bytes, tail_bytes, spool_floor, notes);
  }
  const int fork_errno = errno;
  int st = 0;
  while (mid > 0 && ::waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
  close_all({s[0].fd, s[1].fd, stepd, log_fd, streams_fd, live_fd});
  if (mid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    close_all({wr[0], wr[1]});
    errno = mid < 0 ? fork_errno : ECHILD;
    return false;
  }
  // From here the task writes into the tee. dup2 clears close-on-exec on 1 and 2.
  bool ok = true;
  if (wr[0] >= 0) ok = ::dup2(wr[0], STDOUT_FILENO) >= 0 && (!shared || ::dup2(wr[0], STDERR_FILENO) >= 0);
  if (ok && wr[1] >= 0) ok = ::dup2(wr[1], STDERR_FILENO) >= 0;
  const int e = errno;
  close_all({wr[0], wr[1]});
  errno = e;
  return ok;
}

}  // namespace gpualert::spank
