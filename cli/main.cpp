// gpualert: argument parsing only; each subcommand lives in its own file.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.hpp"

using namespace gpualert::cli;

namespace {

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
      {"--rules", "rules", "extra rule file (repeatable)"},
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpualert: tells you why a training job ended, and mails you the verdict and the log"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpualert 0.1.0");

  RunOptions run;
  std::string run_config, run_dir;
  std::vector<std::string> artifacts;
  auto* r = app.add_subcommand("run", "run CMD, keep its log, diagnose how it ended and notify");
  r->prefix_command();  // everything after the first non-option (or after --) is the command
  r->add_option("--config", run_config, "user config file (default ~/.config/gpualert/gpualert.conf)");
  r->add_option("--run-dir", run_dir, "put this run's log, run.json and verdict.json in DIR");
  r->add_option("--artifact", artifacts, "attach files matching GLOB (relative to the working directory)")
      ->allow_extra_args(false);
  r->add_flag("--quiet,-q", run.quiet, "no summary on stderr");
  r->add_flag("!--no-pty", run.pty,
              "give the command pipes even where its stdout or stderr is a terminal (by default a pty keeps it a terminal)");
  add_setting_flags(r, run.flags);

  ClassifyOptions cls;
  std::vector<std::string> cls_rules;
  int exit_code = 0;
  auto* c = app.add_subcommand("classify", "diagnose logs offline");
  c->add_option("logs", cls.logs, "log files ('-' for stdin)")->required();
  c->add_flag("--json", cls.json, "one JSON verdict per input, one per line");
  auto* ec = c->add_option("--exit-code", exit_code, "exit code; negative for death by signal (-9 = SIGKILL)");
  c->add_option("--state", cls.state, "Slurm job state (COMPLETED, FAILED, TIMEOUT, ...)");
  c->add_option("--rules", cls_rules, "extra rule file (repeatable)")->allow_extra_args(false);
  c->add_option("--kernel-log", cls.kernel_logs, "the node's kernel log for the run (saved dmesg, kern.log; repeatable)")
      ->allow_extra_args(false);
  c->add_option("--time-limit", cls.time_limit,
                "seconds to spend reading each log: one too big is read from its start, then its end, and the "
                "verdict names the part not read")
      ->check(CLI::Range(0.0, 86400.0));
  c->add_flag("--reference", cls.reference,
              "read every line in full with RE2 alone instead of letting the fast matcher pick the lines (much "
              "slower; the same verdicts, for comparison)");

  OutboxOptions ob;
  std::string ob_config;
  auto* o = app.add_subcommand("outbox", "list or send the messages waiting in the outbox");
  o->add_option("action", ob.action, "list | flush")->required()->check(CLI::IsMember({"list", "flush"}));
  o->add_option("--config", ob_config, "user config file");
  add_setting_flags(o, ob.flags);

  LogOptions lg;
  auto* l = app.add_subcommand("log", "print a run's captured output, optionally one stream only");
  l->add_option("run", lg.run, "run directory (or its output.log)")->required();
  l->add_option("--stream", lg.stream, "out | err | gpualert | all")
      ->check(CLI::IsMember({"out", "err", "gpualert", "all"}));

  // `gpualert run [options] -- CMD...`: everything after the first `--` that
  // follows `run` is the command, untouched (CLI11 would try to parse it).
  std::vector<std::string> after_dashes;
  int parse_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "run") continue;
    for (int j = i + 1; j < argc; ++j)
      if (std::string(argv[j]) == "--") {
        after_dashes.assign(argv + j + 1, argv + argc);
        parse_argc = j;
        break;
      }
    break;
  }
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (r->parsed()) {
    for (const auto& a : artifacts) run.flags.emplace_back("artifact", a, "--artifact");
    if (!run_config.empty()) run.config_file = run_config;
    if (!run_dir.empty()) run.run_dir = run_dir;
    run.command = r->remaining();
    run.command.insert(run.command.end(), after_dashes.begin(), after_dashes.end());
    if (run.command.empty()) {
      std::cerr << "gpualert run: no command given (usage: gpualert run [options] -- CMD [ARGS...])\n";
      return 2;
    }
    run_command(run);
  }
  if (c->parsed()) {
    if (*ec) cls.exit_code = exit_code;
    for (const auto& f : cls_rules) cls.rules.emplace_back(f);
    return classify_command(cls);
  }
  if (o->parsed()) {
    if (!ob_config.empty()) ob.config_file = ob_config;
    return outbox_command(ob);
  }
  if (l->parsed()) return log_command(lg);
  return 2;
}
