#include "as_job_user.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "gpualert/classifier/verdict_wire.hpp"

namespace gpualert::epilog {
bool become_user(const JobUser& u) {
  if (::getuid() == u.uid && ::geteuid() == u.uid && ::getuid() != 0) return true;  // nothing to drop
  const bool groups_ok = u.groups.empty() ? ::setgroups(0, nullptr) == 0 : ::setgroups(u.groups.size(), u.groups.data()) == 0;
  if (!groups_ok || ::setgid(u.gid) != 0 || ::setuid(u.uid) != 0) return false;
  // Still able to regain root: read nothing.
  return ::getuid() == u.uid && ::geteuid() == u.uid && (u.uid == 0 || ::setuid(0) != 0);
}

namespace {

[[noreturn]] void child(int out, const JobUser& user, const std::function<std::string()>& work) {
  if (!become_user(user)) ::_exit(3);
  std::string answer;
  try {
    answer = work();
  } catch (...) {
    ::_exit(4);
  }
  std::size_t off = 0;
  while (off < answer.size()) {
    const ssize_t n = ::write(out, answer.data() + off, answer.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(5);
    off += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

std::optional<std::string> run_as_user(const JobUser& user, const std::function<std::string()>& work,
                                       std::chrono::seconds limit, std::string& why, std::size_t max_bytes) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    why = "pipe failed";
    return std::nullopt;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(p[0]);
    ::close(p[1]);
    why = "fork failed";
    return std::nullopt;
  }
  if (pid == 0) {
    ::close(p[0]);
    child(p[1], user, work);
  }
  ::close(p[1]);
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool overran = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || answer.size() > max_bytes) {
      overran = true;
      break;
    }
    pollfd pf{p[0], POLLIN, 0};
    const int r = ::poll(&pf, 1, static_cast<int>(left.count()));
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(p[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(p[0]);
  if (overran) ::kill(pid, SIGKILL);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (overran) {
    why = "the work as uid " + std::to_string(user.uid) + " overran its limit of " + std::to_string(limit.count()) +
          " s or its output cap";
    return std::nullopt;
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    why = WIFSIGNALED(st) ? "the work as uid " + std::to_string(user.uid) + " died by signal " + std::to_string(WTERMSIG(st))
          : WEXITSTATUS(st) == 3 ? "could not become uid " + std::to_string(user.uid)
          : WEXITSTATUS(st) == 4 ? "the work as uid " + std::to_string(user.uid) + " failed"
                                 : "the work as uid " + std::to_string(user.uid) + " exited with status " +
                                       std::to_string(WEXITSTATUS(st));
    return std::nullopt;
  }
  return answer;
}

std::optional<classify::Verdict> classify_as_user(uid_t uid, gid_t gid, const std::function<classify::Verdict()>& work,
                                                  std::chrono::seconds limit, std::string& why) {
  const auto wire = run_as_user({uid, gid, {}}, [&] { return classify::verdict_to_wire(work()); }, limit, why);
  if (!wire) return std::nullopt;
  auto v = classify::verdict_from_wire(*wire);
  if (!v) why = "the classifier's answer was not a verdict";
  return v;
}

std::vector<gid_t> groups_of(const std::string& user, gid_t gid) {
  std::vector<gid_t> out(64);
  for (int tries = 0; tries < 4 && !user.empty(); ++tries) {
    int n = static_cast<int>(out.size());
    if (::getgrouplist(user.c_str(), gid, out.data(), &n) >= 0) {
      out.resize(static_cast<std::size_t>(n));
      return out;
    }
    out.resize(static_cast<std::size_t>(n) + 16);
  }
  return {gid};
}

}  // namespace gpualert::epilog
