#pragma once
// One function per subcommand of the `gpualert` binary; main.cpp only parses.
#include "flag_settings.hpp"
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpualert::cli {


struct RunOptions {
  std::vector<std::string> command;
  std::optional<std::filesystem::path> config_file;
  std::optional<std::filesystem::path> run_dir;
  FlagSettings flags;
  bool quiet = false;
  bool pty = true;  // a terminal stays a terminal for the command (--no-pty: pipes)
};
[[noreturn]] void run_command(const RunOptions& o);

struct ClassifyOptions {
  std::vector<std::string> logs;
  bool json = false;
  std::optional<int> exit_code;
  std::optional<std::string> state;
  std::vector<std::filesystem::path> rules;
  std::vector<std::filesystem::path> kernel_logs;  // saved dmesg / kern.log text for the run's node
  std::string gpus = "all";                         // the run's GPUs: "all", or PCI addresses "0000:3b:00,0000:5e:00"
  std::optional<double> time_limit;                // seconds per log: a bigger log is read in part
  bool reference = false;                          // read every line with RE2 alone (slow; for comparison)
};
int classify_command(const ClassifyOptions& o);

// The diagnosis half of `gpualert run`, in gpualert-core: reads the launcher's record
// (post_run_wire.hpp) from descriptor FD.
int post_run_command(int fd);

struct ReportOptions {
  std::string since = "now-7days", until = "now";  // sacct's own time forms
  std::string partitions, users, nodelist;         // sacct -r / -u / -N lists
  bool json = false, csv = false;
  std::string input;  // a saved `sacct --json` ("-": stdin) instead of running sacct
  std::size_t top = 15;
  // --mail[=ADDR,...]: the text report also goes by mail (to ADDR, else infra_to, else
  // admin_to), through the outbox like every message.
  bool mail = false;
  std::string mail_to;
  std::optional<std::filesystem::path> config_file;
};
int report_command(const ReportOptions& o);
std::vector<std::string> sacct_args(const ReportOptions& o);

struct ShowOptions {
  std::string job;
  std::string spool = "/var/spool/gpualert";  // the node's spool, where the helper keeps each job's files
};
int show_command(const ShowOptions& o);

struct OutboxOptions {
  std::string action;  // list | show | retry | purge | flush
  std::string id;      // show, retry
  int older_than_days = 30;  // purge
  std::optional<std::filesystem::path> config_file;
  FlagSettings flags;
};
int outbox_command(const OutboxOptions& o);

struct SenderOptions {
  bool once = false;
  std::optional<std::filesystem::path> config_file;
  FlagSettings flags;
};
int sender_command(const SenderOptions& o);

struct ConfigCheckOptions {
  bool json = false;
  bool no_relay = false;
  std::optional<std::filesystem::path> config_file;
  std::optional<std::filesystem::path> plugstack;
};
int config_check_command(const ConfigCheckOptions& o);

struct LogOptions {
  std::string stream = "all";  // out | err | gpualert | all
  std::filesystem::path run;   // run directory or its output.log
};
int log_command(const LogOptions& o);

}  // namespace gpualert::cli
