// `gpualert run -- CMD`: log destination first, then the child, then the
// isolated diagnosis, then exit exactly as the child did.
#include <unistd.h>

#include <climits>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/config/defaults.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/runner/exit_mirror.hpp"
#include "gpualert/runner/log_rescue.hpp"
#include "gpualert/runner/run_dir.hpp"
#include "gpualert/runner/wrapped_run.hpp"
#include "live_watcher_launch.hpp"
#include "post_run.hpp"
#include "run_record.hpp"

namespace gpualert::cli {
namespace {

std::string current_dir() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) ? buf : ".";
}

// Our own messages must never be mistaken for the job's: one prefix, stderr only.
void warn(const std::string& msg) { std::cerr << "gpualert: " << msg << "\n"; }

}  // namespace

void run_command(const RunOptions& o) {
  config::Loader loader = load_settings(o.config_file, o.flags);
  const config::Settings settings = loader.settings();

  report::RunFacts facts;
  facts.command = o.command;
  for (const auto& p : loader.problems()) {
    warn("config: " + p.text());
    facts.problems.push_back("config: " + p.text());
  }

  // Signals are blocked from here until the child exists, so none is lost.
  runner::SignalRelay relay;
  relay.install();

  std::vector<std::string> dir_errors;
  // Made durable (and run.json written) while the child execs: the disk stays out of the job's launch.
  std::optional<runner::RunDir> rd = runner::prepare_run_dir(o.run_dir, settings.state_dir, dir_errors, false);
  for (const auto& e : dir_errors) {
    warn(e);
    facts.problems.push_back(e);
  }
  std::unique_ptr<runner::LogWriter> log;
  if (rd) {
    for (const auto& w : rd->warnings) {
      warn(w);
      facts.problems.push_back(w);
    }
    facts.run_dir = rd->dir;
    facts.log = rd->log;
    facts.started = std::chrono::system_clock::now();
    log = std::make_unique<runner::LogWriter>(rd->log_fd, rd->streams_fd);
    if (settings.log_max > 0) log->keep_head_and_tail(settings.log_max / 4, settings.log_max - settings.log_max / 4);
  } else {
    warn("no place could hold the log; the command runs uncaptured");
  }

  runner::WrapResult res;
  WatcherHandle watcher;
  try {
    res = runner::run_wrapped(o.command, log.get(), relay, o.pty, [&](pid_t child) {
      // Looked up while the child execs: the user database and the host name are
      // not worth delaying the job for.
      facts.cwd = current_dir();
      facts.host = config::host_name();
      facts.user = config::current_user();
      if (!rd) return;
      try {
        rd->make_durable();
      } catch (const std::exception& e) {
        warn(std::string("the log is not durable: ") + e.what());
        facts.problems.push_back(std::string("the log is not durable: ") + e.what());
      }
      try {
        write_file_atomic(rd->run_json, run_record(facts, false, "").dump(2) + "\n");
      } catch (const std::exception& e) {
        warn(std::string("run.json: ") + e.what());
        facts.problems.push_back(std::string("run.json: ") + e.what());
      }
      // Live alerts: a watcher beside the command, reading its log as it grows.
      PostRunInput live;
      live.facts = facts;
      live.settings = settings;
      live.config_file = o.config_file;
      live.flags = o.flags;
      watcher = start_watcher(live, child);
    });
  } catch (const std::exception& e) {
    // Pipes or fork failed before the command ran: say so, as a shell would.
    warn(std::string("could not start the command: ") + e.what());
    relay.restore();
    ::_exit(126);
  }

  stop_watcher(watcher);  // its alerts are in alerts.json before the verdict is built
  facts.started = res.started;
  facts.ended = res.ended;
  facts.duration = res.duration;
  facts.wait_status = res.wait_status;
  facts.exec_failed = res.exec_failed;
  facts.problems.insert(facts.problems.end(), res.notes.begin(), res.notes.end());
  std::string log_error;
  if (log) {
    facts.log_bytes = log->bytes();
    log_error = log->error();
    if (!log_error.empty()) facts.problems.push_back("the log is incomplete: " + log_error);
    if (!log->note().empty()) facts.problems.push_back(log->note());
    if (rd) {
      const std::string rescued = runner::restore_removed_log(*rd, *log);
      if (!rescued.empty()) {
        warn(rescued);
        facts.problems.push_back(rescued);
      }
    }
    log.reset();
  }

  PostRunInput in;
  in.facts = facts;
  in.settings = settings;
  in.config_file = o.config_file;
  in.flags = o.flags;
  if (rd) {
    in.run_json = rd->run_json;
    in.verdict_json = rd->verdict_json;
    in.streams = rd->streams;
  }
  in.child_pid = res.pid;
  in.log_error = log_error;
  in.quiet = o.quiet;
  try {
    post_run_isolated(in, relay);
  } catch (...) {
    // Nothing after the child's exit may change our exit status.
  }
  relay.restore();
  runner::exit_like(res.wait_status);
}

}  // namespace gpualert::cli
