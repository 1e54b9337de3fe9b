// Runs a command behind the SPANK plugin's task tee, as slurmstepd would: the
// tee's "slurmstepd" is this process (it waits for the command, then exits),
// the task log goes to LOG_DIR/task.log and the live sample to LOG_DIR/task.live, as
// the plugin does (GPUALERT_BENCH_NO_SAMPLE=1: without the sample, for the comparison).
// For bench/wrapper/run_bench.sh.
// Usage: spank_tee_driver LOG_DIR COMMAND [ARG...]
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "task_tee.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LOG_DIR COMMAND [ARG...]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const pid_t task = ::fork();
  if (task == 0) {  // the task: its parent (this process) plays slurmstepd
    const int log = ::open((dir + "/task.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int streams = ::open((dir + "/task.streams").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const char* no_sample = std::getenv("GPUALERT_BENCH_NO_SAMPLE");
    const int live = no_sample && std::string(no_sample) == "1"
                         ? -1
                         : ::open((dir + "/task.live").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (log < 0 || streams < 0 || !gpualert::spank::start_task_tee(log, streams, live)) {
      std::perror("start_task_tee");
      ::_exit(127);
    }
    ::execvp(argv[2], argv + 2);
    std::perror("exec");
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(task, &st, 0) < 0) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
