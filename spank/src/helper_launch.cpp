#include "helper_launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace gpualert::spank {

namespace {

// The helper's arguments shared by both modes: the spool, the site's file, the
// recipients the job gave and the site's rule for them.
std::vector<std::string> common_args(const config::PluginArgs& args, const OptionValue& option) {
  std::vector<std::string> argv = {args.helper, "--spool", args.spool, "--conf", args.conf};
  std::string to;
  for (const auto& a : option.to) to += (to.empty() ? "" : ",") + a;
  if (!to.empty()) {
    argv.push_back("--to");
    argv.push_back(to);
  }
  // The site's recipient rule, for addresses the helper finds itself (--mail-user).
  std::string allow;
  for (const auto& p : args.recipients.allow) allow += (allow.empty() ? "" : ",") + p;
  if (!allow.empty()) {
    argv.push_back("--allow-to");
    argv.push_back(allow);
  }
  argv.push_back("--max-to");
  argv.push_back(std::to_string(args.recipients.max));
  return argv;
}

void spawn_detached(std::vector<std::string> argv) {
  // Built before fork: only async-signal-safe calls happen in the children.
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  const pid_t mid = ::fork();
  if (mid < 0) return;
  if (mid == 0) {
    ::setsid();
    const pid_t helper = ::fork();
    if (helper != 0) ::_exit(0);
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

void launch_helper(const config::PluginArgs& args, const OptionValue& option) {
  spawn_detached(common_args(args, option));
}

void launch_live_watcher(const config::PluginArgs& args, const OptionValue& option, std::uint32_t job, uid_t uid,
                         const std::string& node) {
  auto argv = common_args(args, option);
  for (const std::string& a : {std::string("--live"), std::string("--job"), std::to_string(job), std::string("--uid"),
                               std::to_string(uid), std::string("--node"), node})
    argv.push_back(a);
  spawn_detached(std::move(argv));
}

}  // namespace gpualert::spank
