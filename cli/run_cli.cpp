#include "run_cli.hpp"

#include <iostream>

namespace gpualert::cli {

// Flags that map one to one onto settings keys (also settable in files and GPUALERT_* variables).
void add_setting_flags(CLI::App* app, FlagSettings& out) {
  struct Flag {
    const char* name;
    const char* key;
    const char* help;
  };
  static const Flag flags[] = {
      {"--smtp", "smtp_url", "relay URL: smtp://host:port or smtps://host:port (default: none, local outbox)"},
      {"--smtp-user", "smtp_user", "AUTH user name"},
      {"--smtp-password-file", "smtp_password_file", "file holding the AUTH password (mode 0600)"},
      {"--smtp-tls", "smtp_tls", "auto (STARTTLS when offered), required, off"},
      {"--to", "to", "recipients, comma-separated"},
      {"--from", "from", "sender address"},
      {"--send-timeout", "send_timeout", "seconds allowed for sending (default 15)"},
      {"--outbox", "outbox", "outbox directory"},
      {"--state-dir", "state_dir", "state directory (runs/ and outbox/ live here)"},
      {"--attach-budget", "attach_budget", "total attachment size, e.g. 20MiB"},
      {"--tail-lines", "tail_lines", "log lines shown in the message body"},
      {"--log-max", "log_max", "most output the run's log keeps on disk (first quarter, last three quarters), e.g. 2GiB; 0 = all"},
      {"--rules", "rules", "extra rule file (repeatable)"},
      {"--time-limit", "time_limit", "the run's time limit in seconds: a live alert when its pace cannot finish in it"},
      {"--stall-after", "stall_after", "a live alert after this long without output while the command runs (default 1800 s)"},
      {"--cancel-after-stall", "cancel_after_stall",
       "end the command (SIGTERM) when it is still stalled this long after the stall alert (default 0: never)"},
  };
  for (const auto& f : flags) {
    const std::string key = f.key, flag = f.name;
    app->add_option_function<std::vector<std::string>>(
           flag, [&out, key, flag](const std::vector<std::string>& vals) {
             for (const auto& v : vals) out.emplace_back(key, v, flag);
           },
           f.help)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
}

void add_run_subcommand(CLI::App& app, RunCli& rc) {
  auto* r = app.add_subcommand("run", "run CMD, keep its log, diagnose how it ended and notify");
  r->prefix_command();  // everything after the first non-option (or after --) is the command
  r->add_option("--config", rc.config, "user config file (default ~/.config/gpualert/gpualert.conf)");
  r->add_option("--run-dir", rc.dir, "put this run's log, run.json and verdict.json in DIR");
  r->add_option("--artifact", rc.artifacts, "attach files matching GLOB (relative to the working directory)")
      ->allow_extra_args(false);
  r->add_flag("--quiet,-q", rc.run.quiet, "no summary on stderr");
  r->add_flag("!--no-pty", rc.run.pty,
              "give the command pipes even where its stdout or stderr is a terminal (by default a pty keeps it a terminal)");
  add_setting_flags(r, rc.run.flags);
  rc.sub = r;
}

int split_run_command(int argc, char** argv, RunCli& rc) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "run") continue;
    for (int j = i + 1; j < argc; ++j)
      if (std::string(argv[j]) == "--") {
        rc.after_dashes.assign(argv + j + 1, argv + argc);
        return j;
      }
    break;
  }
  return argc;
}

bool finish_run_options(RunCli& rc) {
  for (const auto& a : rc.artifacts) rc.run.flags.emplace_back("artifact", a, "--artifact");
  if (!rc.config.empty()) rc.run.config_file = rc.config;
  if (!rc.dir.empty()) rc.run.run_dir = rc.dir;
  rc.run.command = rc.sub->remaining();
  // Whatever CLI11 did not know lands here; a first word starting with '-' is a
  // mistyped option, never the command (which would then run as "--bogus").
  if (!rc.run.command.empty() && rc.run.command.front().starts_with("-")) {
    std::cerr << "gpualert run: unknown option '" << rc.run.command.front()
              << "' (usage: gpualert run [options] -- CMD [ARGS...])\n";
    return false;
  }
  rc.run.command.insert(rc.run.command.end(), rc.after_dashes.begin(), rc.after_dashes.end());
  if (rc.run.command.empty()) {
    std::cerr << "gpualert run: no command given (usage: gpualert run [options] -- CMD [ARGS...])\n";
    return false;
  }
  return true;
}

}  // namespace gpualert::cli
