#include "gpualert/runner/exit_mirror.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

namespace gpualert::runner {

void exit_like(int st) {
  std::fflush(nullptr);
  if (WIFSIGNALED(st)) {
    const int sig = WTERMSIG(st);
    // Our own death must not leave a core file: the child's crash was not ours.
    struct rlimit no_core {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::kill(::getpid(), sig);
    // Signals whose default is to continue or be ignored cannot end a process;
    // fall back to the shell's convention.
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 255);
}

}  // namespace gpualert::runner
