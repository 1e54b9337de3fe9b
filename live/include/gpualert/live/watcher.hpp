#pragma once
// The watcher of one running command: it reads the command's log as it grows, keeps the
// live picture (progress.json in the run directory), and sends a short message through
// the outbox when a live condition becomes true. It never touches the command, and it
// ends when its lifeline closes (the launcher is done) or the command's log is gone.
#include <sys/types.h>

#include <filesystem>

#include "gpualert/config/settings.hpp"
#include "gpualert/live/conditions.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::live {

struct WatchInput {
  report::RunFacts facts;     // command, host, user, log, run_dir, started
  config::Settings settings;  // stall_after, live_interval, time_limit, delivery
  pid_t pid = 0;              // the command
  int lifeline = -1;          // readable end of a pipe: EOF = stop
};

// Returns 0; every problem goes to stderr (the run directory's watch.log).
int watch(const WatchInput& in);

// The live picture (progress.json): the last output and its time, whether the command
// runs and its CPU time, the step and total, the loss values, the alerts fired so far.
std::string progress_json(const Observation& o, const std::vector<std::string>& fired);

// The alerts file (alerts.json) after one more alert: BEFORE is its text so far ("" or
// unreadable: a fresh list), OUTCOME what delivery said.
std::string alerts_with(const std::string& before, const Alert& a, const std::string& outcome);

// What the final message says of the live alerts a run had (alerts.json in RUN_DIR):
// one line per alert, empty when there were none.
std::vector<std::string> sent_alerts(const std::filesystem::path& run_dir);

}  // namespace gpualert::live
