#include "gpualert/common/wait_status.hpp"

#include <sys/wait.h>

#include <cstring>

namespace gpualert {

std::string signal_name(int signo) {
  if (const char* abbrev = ::sigabbrev_np(signo)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signo);
}

int signed_exit_code(int st) {
  if (WIFSIGNALED(st)) return -WTERMSIG(st);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 255;
}

std::string describe_status(int st) {
  if (WIFSIGNALED(st)) return signal_name(WTERMSIG(st)) + " (signal " + std::to_string(WTERMSIG(st)) + ")";
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  return "unknown status " + std::to_string(st);
}

}  // namespace gpualert
