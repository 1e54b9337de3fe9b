#include "launch_failure.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gpualert::epilog {
namespace {

std::optional<int> signal_of(const std::string& exit_code) {
  // sacct's "exit:signal"
  const auto colon = exit_code.find(':');
  if (colon == std::string::npos || exit_code.substr(0, colon) != "0") return std::nullopt;
  try {
    const int s = std::stoi(exit_code.substr(colon + 1));
    if (s >= 32 && s < 128) return s;
  } catch (...) {
  }
  return std::nullopt;
}

// Runs as the user: "" when PATH could be opened for appending (or created), else
// "<errno> <what failed>".
std::string check_output(const std::string& path) {
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0) return "";
  int e = errno;
  if (e == ENOENT) {
    const auto parent = std::filesystem::path(path).parent_path();
    if (::faccessat(AT_FDCWD, parent.empty() ? "." : parent.c_str(), W_OK | X_OK, AT_EACCESS) == 0) return "";
    e = errno;
    if (e == ENOENT) return std::to_string(e) + " the output file's directory " + parent.string() + " does not exist";
  }
  return std::to_string(e) + " the output file " + path + " cannot be opened for writing: " + std::strerror(e);
}

}  // namespace

std::optional<int> launch_error_signal(const JobAccounting& acct, const JobLogs& logs) {
  for (const auto& s : logs.steps)
    if (s.step == "batch") return std::nullopt;  // the script started: a real signal
  for (const auto& st : acct.steps)
    if (st.id.size() > 6 && st.id.compare(st.id.size() - 6, 6, ".batch") == 0) return signal_of(st.exit_code);
  return signal_of(acct.exit_code);
}

LaunchFailure explain_launch_failure(int signal, const std::string& workdir, const std::vector<std::string>& paths,
                                     const JobUser& user, const std::string& name) {
  std::vector<std::string> outputs;
  for (const auto& p : paths) {
    if (p.empty() || p == "/dev/null") continue;
    const std::string abs = p[0] == '/' || workdir.empty() ? p : workdir + "/" + p;
    if (std::find(outputs.begin(), outputs.end(), abs) == outputs.end()) outputs.push_back(abs);
  }
  std::string why;
  const auto answer = run_as_user(user, [&]() -> std::string {
    if (!workdir.empty() && ::faccessat(AT_FDCWD, workdir.c_str(), X_OK, AT_EACCESS) != 0)
      return std::to_string(errno) + " the working directory " + workdir + " cannot be entered: " + std::strerror(errno);
    for (const auto& o : outputs)
      if (auto r = check_output(o); !r.empty()) return r;
    return "";
  }, std::chrono::seconds(20), why, 64 << 10);
  LaunchFailure f;
  const std::string code = "slurmstepd reported its error code " + std::to_string(3968 + signal) + " as 'signal " +
                           std::to_string(signal) + "'";
  if (answer && !answer->empty()) {
    const auto sp = answer->find(' ');
    f.error = std::atoi(answer->substr(0, sp).c_str());
    f.what = "Slurm could not start the batch script: " + answer->substr(sp + 1) + " (checked as " + name + "; " +
             code + ")";
  } else {
    f.what = "Slurm could not start the batch script (" + code + "); " +
             (answer ? "its working directory and output files are usable now, so the node's slurmd log holds the cause"
                     : "the paths could not be checked as the user: " + why);
  }
  return f;
}

}  // namespace gpualert::epilog
