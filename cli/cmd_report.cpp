// `gpualert report`: the fleet's verdicts from Slurm's accounting (sacct --json), or
// from a saved copy (--input), summed up for the operator.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <functional>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flag_settings.hpp"
#include "gpualert/config/addresses.hpp"
#include "gpualert/config/defaults.hpp"
#include "gpualert/report/delivery.hpp"
#include "gpualert/classifier/classifier.hpp"
#include "gpualert/fleet/fleet_summary.hpp"
#include "gpualert/fleet/report_format.hpp"
#include "gpualert/fleet/sacct_json.hpp"

namespace gpualert::cli {
namespace {

// A value handed to sacct as one argument: never an option of its own, never a line.
bool safe_value(const std::string& v) {
  if (v.empty() || v.size() > 256 || v[0] == '-') return false;
  for (unsigned char c : v)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

// sacct's JSON for ARGS, read by READ from its pipe (its stderr is ours); throws when
// it cannot run or fails.
void run_sacct(const std::vector<std::string>& args, const std::function<void(int)>& read) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(p[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::cerr << "gpualert report: cannot run sacct: " << std::strerror(errno) << "\n";
    ::_exit(127);
  }
  ::close(p[1]);
  try {
    read(p[0]);
  } catch (...) {
    ::close(p[0]);
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
    throw;
  }
  ::close(p[0]);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw std::runtime_error("sacct failed (status " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)) +
                             "); its message is above");
}

// The text report as a message to the admins, stored in the outbox and sent like any other.
int mail_report(const ReportOptions& o, const std::string& text, const fleet::FleetSummary& summary,
                const std::string& window) {
  config::Loader loader = load_settings(o.config_file, {});
  for (const auto& p : loader.problems()) std::cerr << "gpualert report: config: " << p.text() << "\n";
  config::Settings s = loader.settings();
  std::vector<std::string> to;
  std::string why;
  if (!o.mail_to.empty() && !config::parse_address_list(o.mail_to, to, why)) {
    std::cerr << "gpualert report: --mail: " << why << "\n";
    return 2;
  }
  if (to.empty()) to = s.infra_to.empty() ? s.admin_to : s.infra_to;
  if (to.empty()) {
    std::cerr << "gpualert report: --mail needs addresses: --mail=ADDR, or infra_to / admin_to in the config\n";
    return 2;
  }
  s.to = to;
  notify::Message m;
  m.envelope.from = s.from.empty() ? "gpualert@" + config::host_name() : s.from;
  m.envelope.to = to;
  m.subject = "[gpualert] fleet report: " + std::to_string(summary.jobs) + " jobs, " + window;
  m.body_text = text;
  m.extra_headers = {{"X-Gpualert-Report", "fleet"}};
  const report::Delivery d = report::deliver(m, s, nullptr);
  std::cerr << "gpualert report: mail " << d.describe(s) << "\n";
  return d.stored ? 0 : 1;
}

}  // namespace

std::vector<std::string> sacct_args(const ReportOptions& o) {
  std::vector<std::string> a = {"sacct", "--json", "-S", o.since, "-E", o.until};
  if (o.users.empty()) a.emplace_back("-a");
  else a.insert(a.end(), {"-u", o.users});
  if (!o.partitions.empty()) a.insert(a.end(), {"-r", o.partitions});
  if (!o.nodelist.empty()) a.insert(a.end(), {"-N", o.nodelist});
  return a;
}

int report_command(const ReportOptions& o) {
  for (const auto* v : {&o.since, &o.until}) {
    if (!safe_value(*v)) {
      std::cerr << "gpualert report: '" << v->substr(0, 64) << "' is not a time sacct takes (e.g. now-7days, 2026-11-01)\n";
      return 2;
    }
  }
  for (const auto* v : {&o.partitions, &o.users, &o.nodelist}) {
    if (!v->empty() && !safe_value(*v)) {
      std::cerr << "gpualert report: '" << v->substr(0, 64) << "' is not a list sacct takes\n";
      return 2;
    }
  }
  try {
    fleet::FleetAggregator agg;
    const auto read = [&](int fd) { fleet::read_sacct_json_fd(fd, [&](fleet::JobRecord&& j) { agg.add(j); }); };
    if (!o.input.empty()) {
      const int fd = o.input == "-" ? STDIN_FILENO : ::open(o.input.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw std::runtime_error(o.input + ": " + std::strerror(errno));
      read(fd);
      if (fd != STDIN_FILENO) ::close(fd);
    } else {
      run_sacct(sacct_args(o), read);
    }
    const auto classifier = classify::Classifier::with_builtin_rules();
    const auto summary = agg.finish([&](const std::string& cls) { return classifier.remedy_for(cls); }, o.top);
    std::string window = "jobs ended from " + o.since + " to " + o.until;
    if (!o.partitions.empty()) window += ", partitions " + o.partitions;
    if (!o.users.empty()) window += ", users " + o.users;
    if (!o.nodelist.empty()) window += ", nodes " + o.nodelist;
    if (!o.input.empty()) window += " (from " + o.input + ")";
    std::cout << (o.json  ? fleet::report_json(summary, window)
                  : o.csv ? fleet::report_csv(summary)
                          : fleet::report_text(summary, window));
    if (o.mail) return mail_report(o, fleet::report_text(summary, window), summary, window);
  } catch (const std::exception& e) {
    std::cerr << "gpualert report: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace gpualert::cli
