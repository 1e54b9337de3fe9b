// fork/exec with an exec-failure report pipe, then the tee loop: child output
// goes to our real stdout/stderr first (the user's view comes first) and to the
// durable log second; signals are relayed while the child lives.
#include "gpualert/runner/wrapped_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "gpualert/common/wait_status.hpp"
#include "gpualert/runner/child_output.hpp"
#include "gpualert/runner/spliced_tee.hpp"
#include "gpualert/runner/tee.hpp"

namespace gpualert::runner {
namespace {

struct ExecReport {
  int err = 0;
  int found = 0;  // the file exists (so ENOENT means a bad interpreter)
};

void make_pipe(int p[2]) {
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
}

// Is NAME an existing file, directly or on $PATH? Runs in the child after a
// failed exec (single-threaded parent, so allocation is safe here).
bool command_exists(const char* name) {
  struct stat st {};
  if (std::strchr(name, '/')) return ::stat(name, &st) == 0;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (::stat((dir + "/" + name).c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return true;
    start = end + 1;
  }
  return false;
}

[[noreturn]] void exec_child(char* const* argv, const ChildOutput* out, int report_w, const SignalRelay& relay) {
  relay.restore_in_child();
  if (out) out->attach_in_child();
  ::execvp(argv[0], argv);
  ExecReport rep;
  rep.err = errno;
  rep.found = command_exists(argv[0]) ? 1 : 0;
  [[maybe_unused]] const ssize_t n = ::write(report_w, &rep, sizeof rep);
  // The shell's convention: 127 not found, 126 found but not executable.
  ::_exit(rep.err == ENOENT && !rep.found ? 127 : 126);
}

std::string exec_message(const std::string& cmd, const ExecReport& rep) {
  std::string why = std::strerror(rep.err);
  if (rep.err == ENOENT && !rep.found) why = "command not found";
  if (rep.err == ENOENT && rep.found) why = "bad interpreter (the #! line names a missing program)";
  return "cannot execute '" + cmd + "': " + why;
}

long long since_ms(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

WrapResult run_wrapped(const std::vector<std::string>& args, LogWriter* log, SignalRelay& relay, bool pty,
                       const std::function<void(pid_t)>& after_fork) {
  WrapResult r;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  std::optional<ChildOutput> out;
  if (log) out.emplace(pty);
  int rep[2] = {-1, -1};
  make_pipe(rep);

  r.started = std::chrono::system_clock::now();
  const auto t0 = std::chrono::steady_clock::now();
  r.pid = ::fork();
  if (r.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (r.pid == 0) exec_child(argv.data(), out ? &*out : nullptr, rep[1], relay);

  if (out) out->close_child_ends();
  ::close(rep[1]);
  if (after_fork) after_fork(r.pid);
  relay.unblock();

  // EOF (close-on-exec) means exec succeeded; a report means it failed.
  ExecReport report;
  ssize_t got;
  do got = ::read(rep[0], &report, sizeof report);
  while (got < 0 && errno == EINTR);
  ::close(rep[0]);
  if (got == static_cast<ssize_t>(sizeof report)) {
    r.exec_failed = true;
    r.exec_error = exec_message(args[0], report);
    const std::string line = "gpualert: " + r.exec_error + "\n";
    if (log) log->append(StreamTag::Gpualert, line);
    write_out(STDERR_FILENO, line, {});
  }

  bool reaped = false;
  auto try_reap = [&] {
    if (reaped) return;
    int st = 0;
    pid_t w;
    do w = ::waitpid(r.pid, &st, WNOHANG);
    while (w < 0 && errno == EINTR);
    if (w == r.pid) {
      reaped = true;
      r.wait_status = st;
      r.ended = std::chrono::system_clock::now();
      r.duration = std::chrono::milliseconds(since_ms(t0));
    }
  };
  auto handle_signals = [&] {
    for (const auto& s : relay.drain()) {
      if (s.signo == SIGCHLD) {
        try_reap();
      } else if (s.signo == SIGWINCH) {
        // The terminal was resized: the pty follows, then the program is told
        // (it already was, by the terminal, possibly before the pty changed).
        if (!reaped && out && out->any_pty()) {
          out->follow_window_size();
          ::kill(r.pid, SIGWINCH);
        }
      } else if (!reaped && SignalRelay::should_forward(s)) {
        ::kill(r.pid, s.signo);
        r.forwarded.push_back(signal_name(s.signo));
      }
    }
  };

  TeeSource src[2];
  if (out) {
    for (int i = 0; i < out->count(); ++i) {
      OutputChannel& c = out->channel(i);
      src[i] = {c.read, c.real, c.tag, true, false};
      c.read = -1;  // the tee closes it
    }
    for (const auto& note : out->notes()) log->append(StreamTag::Gpualert, "gpualert: " + note + "\n");
  }
  std::string buf(256 * 1024, '\0');
  SplicedTee spliced;
  std::chrono::steady_clock::time_point reaped_at{};
  auto last_data = std::chrono::steady_clock::now();

  for (;;) {
    const bool any_open = src[0].open || src[1].open;
    if (reaped && !any_open) break;
    if (reaped) {
      if (reaped_at == std::chrono::steady_clock::time_point{}) reaped_at = std::chrono::steady_clock::now();
      // A background grandchild may hold the pipes open forever: after the
      // child is gone, keep draining only while data flows, and never long.
      if (since_ms(last_data) > 300 || since_ms(reaped_at) > 2000) {
        r.notes.push_back("a process started by the command kept its output open after it exited; "
                          "capture stopped 2 s after the command ended");
        break;
      }
    }
    pollfd fds[3];
    nfds_t n = 0;
    fds[n++] = {relay.fd(), POLLIN, 0};
    int idx[2] = {-1, -1};
    for (int i = 0; i < 2; ++i)
      if (src[i].open) {
        idx[i] = static_cast<int>(n);
        fds[n++] = {src[i].fd, POLLIN, 0};
      }
    const int timeout = reaped ? 100 : (any_open ? -1 : 1000);
    const int pr = ::poll(fds, n, timeout);
    if (pr < 0 && errno != EINTR) break;
    handle_signals();
    if (!any_open) try_reap();  // belt and braces if a SIGCHLD was coalesced
    if (pr <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (idx[i] < 0 || !(fds[idx[i]].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (spliced.pump(src[i], *log, buf, handle_signals, r.notes)) last_data = std::chrono::steady_clock::now();
    }
  }
  for (auto& s : src)
    if (s.open) ::close(s.fd);

  while (!reaped) {  // output closed early (or never captured): wait, still relaying signals
    pollfd p{relay.fd(), POLLIN, 0};
    ::poll(&p, 1, 200);
    handle_signals();
    try_reap();
  }
  if (log) {
    for (const auto& note : r.notes) log->append(StreamTag::Gpualert, "gpualert: " + note + "\n");
    log->finish();
  }
  return r;
}

}  // namespace gpualert::runner
