#include "controller_view.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "gpualert/common/run_program.hpp"
#include "gpualert/config/addresses.hpp"

namespace gpualert::epilog {
namespace {

bool digits(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Found {
  std::size_t key = 0;  // where " KEY=" starts
  std::size_t end = 0;  // just past the value
  std::string value;    // up to the next space or newline
};

// " KEY=value" when the text holds " KEY=" exactly once.
std::optional<Found> sole(const std::string& text, const std::string& key) {
  const std::string needle = " " + key + "=";
  const auto at = text.find(needle);
  if (at == std::string::npos || text.find(needle, at + 1) != std::string::npos) return std::nullopt;
  const auto from = at + needle.size();
  const auto end = std::min(text.find_first_of(" \n", from), text.size());
  return Found{at, end, text.substr(from, end - from)};
}

// Slurm prints "Requeue=%u Restarts=%u BatchFlag=%u".
std::optional<int> restarts(const std::string& text) {
  const auto f = sole(text, "Restarts");
  if (!f || !digits(f->value) || text.compare(f->end, 11, " BatchFlag=") != 0) return std::nullopt;
  const auto rq = text.rfind(" Requeue=", f->key);
  if (rq == std::string::npos || !digits(text.substr(rq + 9, f->key - rq - 9))) return std::nullopt;
  return std::atoi(f->value.c_str());
}

// Slurm prints "MailUser=%s MailType=%s" (only when mail was asked for). The address is
// the owner's to choose anyway (--mail-user); it must still be a plain address list.
std::vector<std::string> mail_user(const std::string& text) {
  const auto f = sole(text, "MailUser");
  std::vector<std::string> out;
  std::string why;
  if (!f || f->value == "(null)" || text.compare(f->end, 10, " MailType=") != 0 ||
      !config::parse_address_list(f->value, out, why))
    out.clear();
  return out;
}

// Slurm prints "... StdErr=%s StdIn=%s StdOut=%s Power=...": a path runs to the
// next key, and any of the keys written twice (by a path) leaves it unknown.
std::string path_between(const std::string& text, const std::string& key, const std::string& next) {
  const auto f = sole(text, key);
  const auto n = sole(text, next);
  if (!f || !n || n->key < f->key) return "";
  return text.substr(f->key + key.size() + 2, n->key - f->key - key.size() - 2);
}

// "JobId=700 HetJobId=699 HetJobOffset=1 JobName=...": Slurm's own fields come
// before the first one the owner writes (JobName), so they are read from the start.
void het_fields(const std::string& text, ControllerView& v) {
  const auto name = text.find(" JobName=");
  const std::string head = text.substr(0, name == std::string::npos ? 0 : name);
  // "JobId=84 ArrayJobId=65 ArrayTaskId=19 JobName=...": the same holds for an array task.
  const auto arr = sole(head, "ArrayJobId"), task = sole(head, "ArrayTaskId");
  if (arr && task && digits(arr->value) && digits(task->value)) {
    v.array_job_id = arr->value;
    v.array_task_id = task->value;
  }
  const auto id = sole(head, "HetJobId"), off = sole(head, "HetJobOffset");
  if (!id || !off || !digits(id->value) || !digits(off->value)) return;
  v.het_job_id = static_cast<std::uint32_t>(std::stoul(id->value));
  v.het_job_offset = static_cast<std::uint32_t>(std::stoul(off->value));
  // "   HetJobIdSet=699-700" follows JobName on the one-line form: taken only when sole.
  if (const auto set = sole(text, "HetJobIdSet"))
    if (set->value.find_first_not_of("0123456789-,") == std::string::npos) v.het_job_id_set = set->value;
}

}  // namespace

ControllerView parse_controller_view(const std::string& scontrol_output) {
  ControllerView v;
  if (scontrol_output.rfind("JobId=", 0) != 0) return v;
  v.restarts = restarts(scontrol_output);
  v.mail_user = mail_user(scontrol_output);
  v.std_err = path_between(scontrol_output, "StdErr", "StdIn");
  v.std_out = path_between(scontrol_output, "StdOut", "Power");
  het_fields(scontrol_output, v);
  // The owner's own choice either way, so a forged copy changes only their own mail;
  // two copies leave it at the default.
  if (const auto t = sole(scontrol_output, "MailType")) v.array_tasks_mail = t->value.find("ARRAY_TASKS") != std::string::npos;
  if (const auto t = sole(scontrol_output, "TimeLimit"); t && t->value.find_first_not_of("0123456789:-") == std::string::npos)
    v.time_limit = t->value;
  if (const auto n = sole(scontrol_output, "NodeList"); n && n->value != "(null)") v.node_list = n->value;
  const auto name = scontrol_output.find(" JobName=");
  if (name != std::string::npos) {
    const auto from = name + 9;
    v.job_name = scontrol_output.substr(from, std::min(scontrol_output.find_first_of(" \n", from), scontrol_output.size()) - from);
  }
  return v;
}

ControllerView controller_view(std::uint32_t job) {
  const std::string id = std::to_string(job);
  const auto r = run_program({"scontrol", "-o", "show", "job", id}, std::chrono::seconds(10));
  if (!r || !WIFEXITED(r->wait_status) || WEXITSTATUS(r->wait_status) != 0) return {};
  if (r->out.rfind("JobId=" + id + " ", 0) != 0) return {};  // another job's record, or none
  return parse_controller_view(r->out);
}

std::vector<std::string> expand_nodelist(const std::string& list) {
  std::vector<std::string> nodes;
  if (list.empty()) return nodes;
  const auto r = run_program({"scontrol", "show", "hostnames", list}, std::chrono::seconds(10));
  if (r && WIFEXITED(r->wait_status) && WEXITSTATUS(r->wait_status) == 0) {
    std::istringstream in(r->out);
    std::string n;
    while (in >> n) nodes.push_back(n);
  }
  if (nodes.empty()) nodes.push_back(list);  // a single plain name
  return nodes;
}

}  // namespace gpualert::epilog
