// `gpualert show JOBID`: one job's verdict as accounting keeps it, and, on the node
// that ran it, the full verdict and where its log is. Your own jobs; an admin any.
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpualert/common/run_program.hpp"
#include "gpualert/fleet/accounting_tag.hpp"

namespace gpualert::cli {
namespace {

bool ok(const std::optional<ProgramOutput>& r) { return r && WIFEXITED(r->wait_status) && WEXITSTATUS(r->wait_status) == 0; }

std::string me() {
  if (const passwd* pw = ::getpwuid(::getuid())) return pw->pw_name;
  return std::to_string(::getuid());
}

// root, or a Slurm administrator or operator (sacctmgr's AdminLevel).
bool slurm_admin(const std::string& user) {
  if (::getuid() == 0) return true;
  const auto r = run_program({"sacctmgr", "-n", "-P", "show", "user", user, "format=AdminLevel"}, std::chrono::seconds(10));
  if (!ok(r)) return false;
  return r->out.find("Administrator") != std::string::npos || r->out.find("Operator") != std::string::npos;
}

std::string random_delimiter() {
  std::random_device rd;
  return "#ga" + std::to_string(rd()) + std::to_string(rd()) + "#";
}

void print_list(const nlohmann::json& j, const char* key, const char* title) {
  if (!j.contains(key) || !j[key].is_array() || j[key].empty()) return;
  std::cout << title << "\n";
  for (const auto& s : j[key])
    if (s.is_string()) std::cout << "  - " << s.get<std::string>() << "\n";
}

}  // namespace

int show_command(const ShowOptions& o) {
  static const std::regex kJob("[0-9]{1,10}(_[0-9]{1,10})?");
  if (!std::regex_match(o.job, kJob)) {
    std::cerr << "gpualert show: '" << o.job.substr(0, 40) << "' is not a job id (like 1234 or 1234_7)\n";
    return 2;
  }
  const std::string d = random_delimiter();  // a job name cannot end a field it does not know
  const auto r = run_program({"sacct", "-j", o.job, "-X", "-n", "-P", "--delimiter=" + d, "-o",
                              "JobID,User,State,ExitCode,NodeList,SystemComment"},
                             std::chrono::seconds(20));
  if (!ok(r)) {
    std::cerr << "gpualert show: sacct could not be asked" << (r ? ": " + r->err.substr(0, 300) : std::string()) << "\n";
    return 1;
  }
  // The newest record of this id (a reused id has older ones first).
  std::vector<std::string> f;
  {
    std::string rec;
    std::istringstream in(r->out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(o.job + d, 0) == 0) rec = line;
    if (rec.empty()) {
      std::cerr << "gpualert show: accounting has no job " << o.job << "\n";
      return 1;
    }
    for (std::size_t p = 0;;) {
      const auto q = rec.find(d, p);
      f.push_back(rec.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
      p = q + d.size();
    }
  }
  if (f.size() < 6) {
    std::cerr << "gpualert show: sacct's answer for job " << o.job << " is not whole\n";
    return 1;
  }
  const std::string& owner = f[1];
  const std::string caller = me();
  if (owner != caller && !slurm_admin(caller)) {
    std::cerr << "gpualert show: job " << o.job << " is not yours (only its owner and Slurm's administrators see it)\n";
    return 1;
  }
  std::cout << "job " << o.job << " of " << owner << ": " << f[2] << ", exit " << f[3] << ", on " << f[4] << "\n";
  if (const auto v = fleet::parse_tag(f[5])) {
    std::cout << "verdict: " << v->cls << " (whose move: " << v->attribution << ", confidence "
              << static_cast<int>(v->confidence * 100 + 0.5) << "%)";
    if (!v->bad.empty()) std::cout << "; faulted GPU " << v->bad.front();
    std::cout << "\n";
  } else {
    std::cout << "verdict: none in accounting (gpualert did not watch this job, or its helper has not finished)\n";
  }
  // The whole verdict and the log, where the job ran (the spool is node-local).
  const std::string dir = o.spool + "/jobs/" + o.job.substr(0, o.job.find('_'));
  std::ifstream vin(dir + "/verdict.json");
  const auto j = nlohmann::json::parse(vin, nullptr, false);
  if (!vin || j.is_discarded() || !j.is_object()) {
    std::cout << "the full verdict and the log are in " << dir << " on " << f[4] << "\n";
    return 0;
  }
  print_list(j, "shows", "What the data shows:");
  print_list(j, "implies", "What it implies:");
  print_list(j, "cannot_decide", "What it cannot decide:");
  if (j.contains("remedy") && j["remedy"].is_string()) std::cout << "Remedy:\n  " << j["remedy"].get<std::string>() << "\n";
  std::cout << "log: " << dir << "/combined.log\n";
  return 0;
}

}  // namespace gpualert::cli
