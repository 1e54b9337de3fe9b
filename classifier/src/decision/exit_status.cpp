#include "exit_status.hpp"

#include <cctype>
#include <utility>

namespace gpualert::classify::detail {

const char* signame(int sig) {
  switch (sig) {
    case 1: return "SIGHUP";
    case 2: return "SIGINT";
    case 3: return "SIGQUIT";
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 13: return "SIGPIPE";
    case 15: return "SIGTERM";
    default: return "signal";
  }
}

std::string state_word(const std::string& s) {
  std::string up;
  for (char c : s) up.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  static const std::pair<const char*, const char*> kDueTo[] = {
      {"DUE TO TIME LIMIT", "TIMEOUT"}, {"DUE TO PREEMPTION", "PREEMPTED"}, {"DUE TO NODE FAIL", "NODE_FAIL"},
      {"DUE TO JOB REQUEUE", "REQUEUED"}};
  for (const auto& [phrase, word] : kDueTo)
    if (up.find(phrase) != std::string::npos) return word;
  const auto end = up.find_first_of(" +");
  return up.substr(0, end);
}

Exit read_exit(const RunStatus& st, const std::string& slurm) {
  Exit e;
  e.code = st.exit_code;
  if (e.code) {
    if (*e.code < 0) e.signal = -*e.code;
    else if (*e.code > 128 && *e.code < 128 + 65) { e.signal = *e.code - 128; e.shell_style = true; }
    e.zero = *e.code == 0;
  } else if (slurm == "COMPLETED") {
    e.zero = true;
  }
  return e;
}

int exit_agreement(const std::string& cls, const Exit& e) {
  if (!e.code) return 0;
  const int c = *e.code;
  if (cls == "healthy" || cls == "divergence") return c == 0 ? 1 : -1;
  if (cls == "nan_loss") return 0;
  if (cls == "oom_killer") return e.signal == 9 ? 1 : (c == 0 ? -1 : 0);
  if (cls == "segfault") return e.signal == 11 ? 1 : (c == 0 ? -1 : 0);
  if (cls == "signal_kill") return e.signal ? 1 : (c == 0 ? -1 : 0);
  if (cls == "timeout" || cls == "cancelled" || cls == "preempted" || cls == "node_fail") return 0;
  if (cls == "unknown") return c != 0 ? 1 : 0;
  // A crash: any non-zero status fits; SIGABRT fits the C++-level failures too.
  return c == 0 ? -1 : 1;
}

std::string exit_claim(const Exit& e, const RunStatus& st) {
  if (!st.launch_failure.empty()) return "the command was never started: the launcher failed before it, so no exit status is its own";
  if (st.exec_failed) return "the command could not be started at all (the wrapper's exec failed)";
  if (!e.code) return "";
  if (*e.code < 0) return "the process was killed by signal " + std::to_string(e.signal) + " (" + signame(e.signal) + ")";
  if (e.shell_style)
    return "the process exited with status " + std::to_string(*e.code) + ", which a shell reports for a child killed by signal " +
           std::to_string(e.signal) + " (" + signame(e.signal) + ")";
  return "the process exited with status " + std::to_string(*e.code);
}

}  // namespace gpualert::classify::detail
