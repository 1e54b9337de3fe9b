// Phrases the text and the HTML message share.
#include "message_words.hpp"

#include <sys/wait.h>

#include <cstdio>

#include "gpualert/common/text.hpp"
#include "gpualert/common/wait_status.hpp"

namespace gpualert::report::words {

// "exit 3", "SIGKILL", "could not start".
std::string status_only(const RunFacts& f) {
  if (f.exec_failed) return "could not start";
  if (f.wait_status) return WIFSIGNALED(*f.wait_status) ? signal_name(WTERMSIG(*f.wait_status)) : describe_status(*f.wait_status);
  return "status unknown";
}

std::string status_detail(const RunFacts& f) {
  std::string s = status_only(f);
  if (f.duration.count() > 0 || f.wait_status) s += ", " + human_duration(f.duration);
  return s;
}

std::string who_acts(const std::string& attribution) {
  if (attribution == "job") return "the job (code, configuration or data)";
  if (attribution == "infra") return "the cluster (hardware, node, network or filesystem): tell the admins";
  if (attribution == "scheduler") return "the scheduler or an operator";
  if (attribution == "none") return "nobody: the run looks healthy";
  return "undecided: see what the data cannot decide";
}

std::string confidence_text(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

std::string command_line(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& a : cmd) {
    if (!s.empty()) s += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t'\"$\\") == std::string::npos;
    s += plain ? a : "'" + a + "'";
  }
  return one_line(s, 400);
}

std::string exit_status_text(const RunFacts& f) {
  return f.exec_failed ? "could not be started" : f.wait_status ? describe_status(*f.wait_status) : "unknown";
}

Move whose_move(const std::string& attribution) {
  if (attribution == "job") return {"Your job's move", "#b45309", "#fff7ed"};
  if (attribution == "infra") return {"The cluster's move", "#b91c1c", "#fef2f2"};
  if (attribution == "scheduler") return {"The scheduler's move", "#6d28d9", "#f5f3ff"};
  if (attribution == "none") return {"Nothing to do", "#15803d", "#f0fdf4"};
  return {"Undecided", "#4b5563", "#f3f4f6"};
}

}  // namespace gpualert::report::words
