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
namespace {

constexpr std::size_t kMaxVerdictBytes = 16u << 20;

[[noreturn]] void child(int out, uid_t uid, gid_t gid, const std::function<classify::Verdict()>& work) {
  if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 || ::getuid() != uid ||
      ::geteuid() != uid || (uid != 0 && ::setuid(0) == 0))
    ::_exit(3);  // still privileged: read nothing
  std::string wire;
  try {
    wire = classify::verdict_to_wire(work());
  } catch (...) {
    ::_exit(4);
  }
  std::size_t off = 0;
  while (off < wire.size()) {
    const ssize_t n = ::write(out, wire.data() + off, wire.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(5);
    off += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

std::optional<classify::Verdict> classify_as_user(uid_t uid, gid_t gid, const std::function<classify::Verdict()>& work,
                                                  std::chrono::seconds limit, std::string& why) {
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
    child(p[1], uid, gid, work);
  }
  ::close(p[1]);
  std::string wire;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool overran = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || wire.size() > kMaxVerdictBytes) {
      overran = true;
      break;
    }
    pollfd pf{p[0], POLLIN, 0};
    const int r = ::poll(&pf, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(p[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    wire.append(buf, static_cast<std::size_t>(n));
  }
  ::close(p[0]);
  if (overran) ::kill(pid, SIGKILL);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (overran) {
    why = "the classifier overran its limit of " + std::to_string(limit.count()) + " s or its output cap";
    return std::nullopt;
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    why = WIFSIGNALED(st) ? "the classifier died by signal " + std::to_string(WTERMSIG(st))
          : WEXITSTATUS(st) == 3 ? std::string("could not become uid ") + std::to_string(uid)
                                 : "the classifier exited with status " + std::to_string(WEXITSTATUS(st));
    return std::nullopt;
  }
  auto v = classify::verdict_from_wire(wire);
  if (!v) why = "the classifier's answer was not a verdict";
  return v;
}

}  // namespace gpualert::epilog
