#include <string_view>

#include "gpualert/common/text.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::report {
namespace {

std::string base_name(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// Launchers whose first non-option argument names the real program.
bool is_launcher(std::string_view prog) {
  for (std::string_view l : {"python", "python3", "torchrun", "deepspeed", "accelerate", "bash", "sh",
                             "srun", "mpirun", "uv", "conda", "env", "nohup", "time"})
    if (prog == l) return true;
  return prog.rfind("python", 0) == 0;
}

}  // namespace

std::string job_label(const std::vector<std::string>& command) {
  if (command.empty()) return "(no command)";
  std::string label = base_name(command[0]);
  if (is_launcher(label)) {
    for (std::size_t i = 1; i < command.size(); ++i) {
      const std::string& a = command[i];
      if (a == "-m" && i + 1 < command.size()) {
        label = command[i + 1];
        break;
      }
      if (a == "-c") break;  // inline code: the interpreter's name is the best label
      if (a.empty() || a[0] == '-' || a.find('=') != std::string::npos) continue;
      if (a == "launch" || a == "run") continue;  // "accelerate launch x.py", "uv run x.py"
      label = base_name(a);
      break;
    }
  }
  return one_line(label, 60);
}

}  // namespace gpualert::report
