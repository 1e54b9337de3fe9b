#pragma once
// The command's processes as /proc shows them: whether the command still runs, and the
// CPU time it and its descendants used (to tell a busy stall from an idle one).
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace gpualert::live {

struct TreeUse {
  bool alive = false;  // the root process exists and is not a zombie
  std::optional<double> cpu_s;  // user + system seconds of the live tree (and the root's waited-for children)
};

TreeUse tree_use(pid_t root, const char* proc = "/proc");

// ROOT and every descendant (a snapshot: the parent first).
std::vector<pid_t> tree_pids(pid_t root, const char* proc = "/proc");

// Sends SIG to every process of ROOT's tree; returns how many were signalled.
int signal_tree(pid_t root, int sig, const char* proc = "/proc");

// The process's name as the kernel keeps it (/proc/PID/comm); empty when it is gone.
std::string process_name(pid_t pid, const char* proc = "/proc");

}  // namespace gpualert::live
