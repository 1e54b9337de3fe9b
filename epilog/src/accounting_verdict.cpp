#include "accounting_verdict.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>

#include "gpualert/common/run_program.hpp"
#include "gpualert/events/kernel_events.hpp"
#include "gpualert/fleet/accounting_tag.hpp"
#include "slurm_accounting.hpp"

namespace gpualert::epilog {
namespace {

bool ran_ok(const std::optional<ProgramOutput>& r) {
  return r && WIFEXITED(r->wait_status) && WEXITSTATUS(r->wait_status) == 0;
}

std::string first_line(const std::string& s) { return s.substr(0, std::min(s.find('\n'), std::size_t{300})); }

// The job record's SystemComment. An admin or slurmctld wrote it, but a delimiter
// nobody can guess still keeps a newline in it from splitting the answer.
std::optional<std::string> system_comment(std::uint32_t job, std::string& error) {
  const std::string delim = sacct_delimiter();
  const auto r = run_program({"sacct", "-j", std::to_string(job), "-X", "-n", "-P", "--delimiter=" + delim, "-o",
                              "JobID,SystemComment"},
                             std::chrono::seconds(15));
  if (!ran_ok(r)) {
    error = "sacct could not read the job's record" + (r ? ": " + first_line(r->err) : std::string());
    return std::nullopt;
  }
  // "<jobid><delim><comment>\n" (the newest record last when the id was reused).
  std::string out = r->out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  const std::string head = std::to_string(job) + delim;
  const auto at = out.rfind(head);
  if (at == std::string::npos || (at != 0 && out[at - 1] != '\n')) {
    error = "sacct has no record of the job";
    return std::nullopt;
  }
  return out.substr(at + head.size());
}

}  // namespace

std::vector<std::string> faulted_gpus(const classify::Verdict& v) {
  std::vector<std::string> out;
  for (const auto& c : v.evidence) {
    if (c.rule.rfind("events.", 0) != 0 || c.rule == "events.neighbour") continue;
    if (const auto id = events::normalize_bus_id(c.text, true))
      if (std::find(out.begin(), out.end(), *id) == out.end()) out.push_back(*id);
  }
  return out;
}

std::string record_in_accounting(std::uint32_t job, const classify::Verdict& v, const std::string& node,
                                 const std::vector<std::string>& job_gpus) {
  fleet::AccountingVerdict a;
  a.cls = v.cls;
  a.attribution = v.attribution;
  a.confidence = v.confidence;
  a.node = node;
  if (!(job_gpus.size() == 1 && job_gpus.front() == "none")) a.gpus = job_gpus;
  if (v.attribution == "infra") a.bad = faulted_gpus(v);
  a.version = "0.1.0";
  // sacctmgr (22.05) lower-cases every value it writes, quoted or not: a token written
  // in lower case reads back as written.
  std::string tag = fleet::format_tag(a);
  for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string error;
  const auto before = system_comment(job, error);
  if (!before) return "accounting: not recorded (" + error + ")";
  const std::string merged = fleet::merge_tag(*before, tag);
  // Another writer's text goes back as it was or not at all: a capital letter would come
  // back lower-cased, and a double quote would end the value early.
  if (std::any_of(before->begin(), before->end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || c == '"'; }))
    return "accounting: not recorded (the job's SystemComment holds another writer's capitals or quotes, which "
           "sacctmgr would not write back as they are)";
  const auto w = run_program({"sacctmgr", "-i", "modify", "job", "where", "jobid=" + std::to_string(job), "set",
                              "SystemComment=\"" + merged + "\""},
                             std::chrono::seconds(30));
  if (!ran_ok(w))
    return "accounting: not recorded (sacctmgr: " + (w ? first_line(w->err + w->out) : std::string("did not run")) + ")";
  const auto after = system_comment(job, error);
  if (!after || after->find(tag) == std::string::npos)
    return "accounting: sacctmgr accepted the verdict but sacct does not show it" + (after ? std::string() : " (" + error + ")");
  return "accounting: " + tag + (before->empty() ? "" : " (kept what was there)");
}

}  // namespace gpualert::epilog
