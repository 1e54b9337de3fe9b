#include "live_watcher_launch.hpp"

#include "gpualert/config/live_choice.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "core_program.hpp"
#include "post_run_wire.hpp"

namespace gpualert::cli {

WatcherHandle start_watcher(const PostRunInput& in, pid_t command) {
  WatcherHandle w;
  if (!config::why_no_live_alerts(in.settings).empty() || in.facts.run_dir.empty() || in.facts.log.empty() || command <= 0) return w;
  PostRunInput rec = in;
  rec.child_pid = command;
  const std::string record = encode_post_run(rec);
  const int input = ::memfd_create("gpualert-watch", MFD_CLOEXEC);
  int life[2];
  if (input < 0) return w;
  if (::pwrite(input, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size()) ||
      ::pipe2(life, O_CLOEXEC) != 0) {
    ::close(input);
    return w;
  }
  const std::string core = core_program();
  const std::string log_path = (in.facts.run_dir / "watch.log").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only the record, the lifeline, nothing on the terminal, and no terminal signals:
    // Ctrl-C is the command's business; the watcher stops when the lifeline closes.
    const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    const int errlog = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::dup2(errlog >= 0 ? errlog : devnull, 2);
    ::dup2(input, 3);
    ::dup2(life[0], 4);
    ::close_range(5, ~0U, 0);
    for (int s : {SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU}) ::signal(s, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const char* args[] = {"gpualert", "watch", "--input-fd", "3", "--lifeline-fd", "4", nullptr};
    ::execv(core.c_str(), const_cast<char* const*>(args));
    ::_exit(127);
  }
  ::close(input);
  ::close(life[0]);
  if (pid < 0) {
    ::close(life[1]);
    return w;
  }
  w.pid = pid;
  w.lifeline = life[1];
  w.first_look = std::chrono::steady_clock::now() + in.settings.live_interval;
  return w;
}

void stop_watcher(WatcherHandle& w) {
  if (w.lifeline >= 0) ::close(w.lifeline);
  w.lifeline = -1;
  if (w.pid <= 0) return;
  // Its last look (alerts it is sending) gets a moment; then it is stopped. A watcher that
  // has not looked yet has nothing to finish (a short run is not held up by its start).
  const auto now = std::chrono::steady_clock::now();
  const auto until = now < w.first_look ? now : now + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    const pid_t r = ::waitpid(w.pid, nullptr, WNOHANG);
    if (r == w.pid || (r < 0 && errno != EINTR)) {
      w.pid = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(w.pid, SIGKILL);
  ::waitpid(w.pid, nullptr, 0);
  w.pid = -1;
}

}  // namespace gpualert::cli
