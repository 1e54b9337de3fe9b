#pragma once
// Everything after the child has exited: classify, write verdict.json and
// run.json, build and deliver the message, print the summary. Runs in its own
// process with a deadline, so nothing here can change the wrapper's exit status.
#include <string>
#include <vector>

#include <chrono>
#include <filesystem>
#include <optional>

#include "flag_settings.hpp"
#include "gpualert/config/settings.hpp"
#include "gpualert/report/run_facts.hpp"
#include "gpualert/runner/signal_relay.hpp"

namespace gpualert::cli {

// Time allowed for everything but sending: classifying a huge log, building the message.
inline constexpr auto kWorkAllowance = std::chrono::seconds(20);

struct PostRunInput {
  report::RunFacts facts;
  config::Settings settings;
  // Where the settings came from, so that the diagnosis program loads the same ones.
  std::optional<std::filesystem::path> config_file;
  FlagSettings flags;
  std::filesystem::path run_json, verdict_json;  // empty when there is no run directory
  std::filesystem::path streams;                  // output.streams: the capture's timeline
  int child_pid = 0;
  std::string log_error;
  bool quiet = false;
};

// Does the work in this process; never throws. Returns 0 when the message was stored.
int post_run(const PostRunInput& in);

// Runs post_run() in gpualert-core (a separate program, so that the launcher loads
// nothing it does not need before the job starts) and waits for it until the deadline
// (send timeout plus time to classify); past that, or on SIGINT/SIGTERM/SIGHUP, it is
// stopped.
void post_run_isolated(const PostRunInput& in, runner::SignalRelay& relay);

}  // namespace gpualert::cli
