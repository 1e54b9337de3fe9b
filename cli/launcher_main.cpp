// gpualert: the launcher. It links only what starting and watching a job needs (no
// classifier, no journal reader, no mail), so that `gpualert run` adds as little as
// possible before the job starts; the diagnosis afterwards and every other
// subcommand are gpualert-core's.
#include <CLI/CLI.hpp>

#include <cstring>

#include "core_program.hpp"
#include "run_cli.hpp"

using namespace gpualert::cli;

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "run") != 0) exec_core(argc, argv);  // help, version, the rest

  CLI::App app{"gpualert: tells you why a training job ended, and mails you the verdict and the log"};
  app.require_subcommand(1);
  RunCli rc;
  add_run_subcommand(app, rc);
  const int parse_argc = split_run_command(argc, argv, rc);
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!finish_run_options(rc)) return 2;
  run_command(rc.run);
}
