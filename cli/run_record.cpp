#include "run_record.hpp"

#include <sys/wait.h>

#include "gpualert/common/text.hpp"
#include "gpualert/common/wait_status.hpp"

namespace gpualert::cli {

nlohmann::json run_record(const report::RunFacts& f, bool finished, const std::string& log_error) {
  using nlohmann::json;
  json j;
  json cmd = json::array();
  for (const auto& a : f.command) cmd.push_back(printable_utf8(a));
  j["command"] = cmd;
  j["cwd"] = printable_utf8(f.cwd);
  j["host"] = f.host;
  j["user"] = f.user;
  j["started"] = iso8601_utc(f.started);
  j["log"] = f.log.string();
  j["gpualert_version"] = "0.1.0";
  j["finished"] = finished;
  if (!finished) return j;
  j["ended"] = iso8601_utc(f.ended);
  j["duration_ms"] = f.duration.count();
  j["exec_failed"] = f.exec_failed;
  if (f.wait_status) {
    const int st = *f.wait_status;
    j["wait_status"] = st;
    j["exit_code"] = signed_exit_code(st);
    if (WIFSIGNALED(st)) j["signal"] = signal_name(WTERMSIG(st));
    j["status"] = describe_status(st);
  }
  j["log_bytes"] = f.log_bytes;
  j["log_complete"] = log_error.empty();
  if (!log_error.empty()) j["log_error"] = log_error;
  json problems = json::array();
  for (const auto& p : f.problems) problems.push_back(printable_utf8(p));
  j["problems"] = problems;
  return j;
}

}  // namespace gpualert::cli
