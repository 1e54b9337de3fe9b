#include "job_facts.hpp"

#include <sys/wait.h>

#include <ctime>

#include "gpualert/common/text.hpp"
#include "gpualert/common/wait_status.hpp"

namespace gpualert::epilog {
namespace {

std::optional<std::chrono::system_clock::time_point> parse_local_time(const std::string& s) {
  std::tm tm{};
  if (s.empty() || !::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::nullopt;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

// The task whose status decides: the first one that failed in any step (a batch
// script that carries on after a failed srun still had a failure: Slurm's derived
// exit code), else the batch script's, else any task's.
std::optional<int> deciding_status(const JobLogs& logs) {
  for (const auto& s : logs.steps)
    for (const auto& t : s.tasks)
      if (t.wait_status && *t.wait_status != 0) return t.wait_status;
  for (const auto& s : logs.steps)
    if (s.step == "batch")
      for (const auto& t : s.tasks)
        if (t.wait_status) return t.wait_status;
  std::optional<int> any;
  for (const auto& s : logs.steps)
    for (const auto& t : s.tasks) {
      if (!t.wait_status) continue;
      if (*t.wait_status != 0) return t.wait_status;
      any = t.wait_status;
    }
  return any;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_elapsed(const std::string& s) {
  long d = 0, h = 0, m = 0, sec = 0;
  if (std::sscanf(s.c_str(), "%ld-%ld:%ld:%ld", &d, &h, &m, &sec) == 4 ||
      (d = 0, std::sscanf(s.c_str(), "%ld:%ld:%ld", &h, &m, &sec) == 3) ||
      (h = 0, std::sscanf(s.c_str(), "%ld:%ld", &m, &sec) == 2))
    return std::chrono::milliseconds(((d * 24 + h) * 60 + m) * 60'000 + sec * 1000);
  return std::nullopt;
}

JobFacts job_facts(const JobEnv& env, const JobAccounting& acct, const JobLogs& logs) {
  JobFacts jf;
  report::RunFacts& f = jf.facts;
  const std::string name = acct.name.empty() ? "job" : acct.name;
  std::string label = name;
  for (char& c : label)
    if (c == '/') c = '_';
  f.command = {label + " (job " + std::to_string(env.job) + ")"};
  f.cwd = acct.workdir.empty() ? env.work_dir : acct.workdir;
  f.host = acct.nodelist.empty() ? env.nodelist : acct.nodelist;
  f.user = acct.user.empty() ? env.user : acct.user;
  if (auto t = parse_local_time(acct.start)) f.started = *t;
  if (auto t = parse_local_time(acct.end)) f.ended = *t;
  if (auto e = parse_elapsed(acct.elapsed)) f.duration = *e;

  auto status = deciding_status(logs);
  if (!status && env.exit_code_raw) status = env.exit_code_raw;
  if (status) {
    f.wait_status = *status;
    jf.exit_code = signed_exit_code(*status);
  }
  f.log = logs.combined;
  f.log_bytes = logs.combined_bytes;
  f.run_dir = logs.combined.empty() ? std::filesystem::path() : logs.combined.parent_path();

  f.extra.push_back({"Slurm job", std::to_string(env.job) + " (" + one_line(name, 80) + ")" +
                                      (env.cluster.empty() ? "" : " on cluster " + env.cluster) +
                                      (env.partition.empty() ? "" : ", partition " + env.partition)});
  if (acct.available)
    f.extra.push_back({"state", acct.state_detail + ", exit " + acct.exit_code + ", derived " +
                                    acct.derived_exit_code + (acct.final ? "" : " (not final yet)")});
  else
    f.extra.push_back({"state", "unknown: " + acct.error});
  if (!acct.elapsed.empty()) f.extra.push_back({"elapsed", acct.elapsed + " of limit " + acct.timelimit});
  std::string steps;
  for (const auto& s : acct.steps) steps += (steps.empty() ? "" : "; ") + s.id + " " + s.state + " " + s.exit_code;
  if (!steps.empty()) f.extra.push_back({"steps", steps});
  for (const auto& s : logs.steps) {
    std::string tasks;
    for (const auto& t : s.tasks)
      tasks += (tasks.empty() ? "" : ", ") + ("task " + std::to_string(t.task) + ": " +
                                              (t.wait_status ? describe_status(*t.wait_status) : "no status"));
    f.extra.push_back({"step " + s.step + " on " + s.node, tasks});
  }
  if (env.restart_count > 0) f.extra.push_back({"restarts", std::to_string(env.restart_count)});
  if (!logs.nodes_missing.empty()) {
    std::string m;
    for (const auto& n : logs.nodes_missing) m += (m.empty() ? "" : ", ") + n;
    f.problems.push_back("no logs visible from node(s) " + m +
                         " (a node-local spool is read only on the first node; use a shared spool for all nodes)");
  }
  for (const auto& p : logs.problems) f.problems.push_back(p);
  return jf;
}

}  // namespace gpualert::epilog
