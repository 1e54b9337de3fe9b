#include "gpualert/runner/exit_mirror.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

using gpualert::runner::exit_like;

namespace {
// What a parent sees when a process calls exit_like(STATUS).
int mirrored(int status) {
  const pid_t pid = ::fork();
  if (pid == 0) exit_like(status);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return st;
}
int signaled(int sig) { return sig; }      // raw status of death by SIG (no core)
int exited(int code) { return code << 8; }  // raw status of exit(CODE)
}  // namespace

TEST(ExitMirror, ExitCodes) {
  for (int code : {0, 1, 2, 7, 126, 127, 255}) {
    const int st = mirrored(exited(code));
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), code);
  }
}

TEST(ExitMirror, DeathBySignalWithoutCore) {
  for (int sig : {SIGSEGV, SIGKILL, SIGTERM, SIGABRT, SIGINT, SIGBUS}) {
    const int st = mirrored(signaled(sig));
    ASSERT_TRUE(WIFSIGNALED(st)) << sig;
    EXPECT_EQ(WTERMSIG(st), sig);
    EXPECT_FALSE(WCOREDUMP(st));
  }
}

TEST(ExitMirror, SignalThatCannotKillFallsBackToShellConvention) {
  const int st = mirrored(signaled(SIGCHLD));
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGCHLD);
}
