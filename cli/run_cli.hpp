#pragma once
// The `run` subcommand's options, shared by the launcher (which runs it) and
// gpualert-core (whose help lists it), and the setting flags other subcommands take.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "commands.hpp"

namespace gpualert::cli {

void add_setting_flags(CLI::App* app, FlagSettings& out);

struct RunCli {
  RunOptions run;
  std::string config, dir;
  std::vector<std::string> artifacts;
  std::vector<std::string> after_dashes;  // the command after `run ... --`, untouched
  CLI::App* sub = nullptr;
};

void add_run_subcommand(CLI::App& app, RunCli& rc);

// `gpualert run [options] -- CMD...`: everything after the first `--` that follows
// `run` is the command (CLI11 would try to parse it). Returns how many arguments
// CLI11 should parse.
int split_run_command(int argc, char** argv, RunCli& rc);

// After parsing: the complete options; false (with a message) if there is no command.
bool finish_run_options(RunCli& rc);

}  // namespace gpualert::cli
