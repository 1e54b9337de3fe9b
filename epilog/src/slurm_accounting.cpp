#include "slurm_accounting.hpp"

#include <sys/wait.h>

#include <sstream>
#include <thread>

#include "gpualert/common/run_program.hpp"

namespace gpualert::epilog {
namespace {

const char* kFormat = "JobID,JobName,State,ExitCode,DerivedExitCode,Elapsed,Timelimit,NodeList,Partition,User,Start,End,WorkDir";

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

bool is_final_state(const std::string& state) {
  static const char* transient[] = {"", "PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "RESIZING",
                                    "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "STAGE_OUT", "SIGNALING"};
  for (const char* t : transient)
    if (state == t) return false;
  return true;
}

JobAccounting parse_sacct(const std::string& text, const std::string& job) {
  JobAccounting a;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto f = split(line, '|');
    if (f.size() < 13) continue;
    if (f[0] == job) {
      a.available = true;
      a.job_id = f[0];
      a.name = f[1];
      a.state_detail = f[2];                           // e.g. "CANCELLED by 1001"
      a.state = a.state_detail.substr(0, a.state_detail.find(' '));
      a.exit_code = f[3];
      a.derived_exit_code = f[4];
      a.elapsed = f[5];
      a.timelimit = f[6];
      a.nodelist = f[7];
      a.partition = f[8];
      a.user = f[9];
      a.start = f[10];
      a.end = f[11];
      a.workdir = f[12];
    } else if (f[0].rfind(job + ".", 0) == 0) {
      a.steps.push_back({f[0], f[1], f[2].substr(0, f[2].find(' ')), f[3]});
    }
  }
  if (!a.available) a.error = "sacct has no record of job " + job;
  a.final = a.available && is_final_state(a.state);
  return a;
}

JobAccounting query_job(std::uint32_t job, std::chrono::seconds max_wait,
                        const std::function<bool()>& requeued_since) {
  const std::string id = std::to_string(job);
  const auto deadline = std::chrono::steady_clock::now() + max_wait;
  JobAccounting last;
  last.error = "sacct was not run";
  for (;;) {
    const auto r = run_program({"sacct", "-j", id, "-n", "-P", "-o", kFormat}, std::chrono::seconds(15));
    if (!r) {
      last.error = "sacct did not answer within 15 s";
    } else if (!WIFEXITED(r->wait_status) || WEXITSTATUS(r->wait_status) != 0) {
      last.error = "sacct failed: " + r->err.substr(0, 300);
      // Accounting disabled or unreachable: waiting will not help.
      if (r->err.find("disabled") != std::string::npos) return last;
    } else {
      last = parse_sacct(r->out, id);
      // Accounting lags the job by a moment (it may still say RUNNING here), so
      // only Slurm's own word counts as a requeue.
      if (last.state == "REQUEUED" || (requeued_since && requeued_since())) {
        last.requeued = true;
        return last;
      }
      if (last.final) {
        // slurmdbd fills in the rest of the record (name, limit) a moment after
        // the state turns final; one more read gets the settled record.
        std::this_thread::sleep_for(std::chrono::seconds(2));
        const auto again = run_program({"sacct", "-j", id, "-n", "-P", "-o", kFormat}, std::chrono::seconds(15));
        if (again && WIFEXITED(again->wait_status) && WEXITSTATUS(again->wait_status) == 0) {
          const JobAccounting settled = parse_sacct(again->out, id);
          if (settled.final) return settled;
        }
        return last;
      }
      if (last.available) last.error = "job still " + last.state + " after waiting";
    }
    if (std::chrono::steady_clock::now() >= deadline) return last;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace gpualert::epilog
