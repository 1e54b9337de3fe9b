// gpualert-core: argument parsing only; each subcommand lives in its own file. The
// `gpualert` launcher (launcher_main.cpp) runs jobs itself and this program for the rest.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.hpp"
#include "live_watcher_launch.hpp"
#include "run_cli.hpp"

using namespace gpualert::cli;

int main(int argc, char** argv) {
  CLI::App app{"gpualert: tells you why a training job ended, and mails you the verdict and the log"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpualert 0.1.0");

  RunCli rc;
  add_run_subcommand(app, rc);

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
  c->add_option("--gpus", cls.gpus,
                "the run's GPUs as PCI addresses (0000:3b:00[,...], as the kernel prints them): only their kernel "
                "records are the run's evidence, another GPU's fault is a neighbour's; 'all' (the default) counts "
                "every record")
      ->capture_default_str();
  c->add_option("--time-limit", cls.time_limit,
                "seconds to spend reading each log: one too big is read from its start, then its end, and the "
                "verdict names the part not read")
      ->check(CLI::Range(0.0, 86400.0));
  c->add_flag("--reference", cls.reference,
              "read every line in full with RE2 alone instead of letting the fast matcher pick the lines (much "
              "slower; the same verdicts, for comparison)");

  OutboxOptions ob;
  std::string ob_config;
  auto* o = app.add_subcommand("outbox", "the messages waiting in the outbox, or given up on");
  o->add_option("action", ob.action,
                "list | show ID | retry ID (back in the queue, due now) | purge (sent and failed records) | flush "
                "(send everything now)")
      ->required()
      ->check(CLI::IsMember({"list", "show", "retry", "purge", "flush"}));
  o->add_option("id", ob.id, "message id (show, retry)");
  o->add_option("--older-than", ob.older_than_days, "purge: days (default 30)")->check(CLI::Range(0, 36500));
  o->add_option("--config", ob_config, "user config file");
  add_setting_flags(o, ob.flags);

  SenderOptions so;
  std::string so_config;
  auto* sd = app.add_subcommand("sender", "deliver what waits in the outbox and the spools: retries with backoff, "
                                          "gives up on refusals and expired messages (telling admin_to), keeps to "
                                          "the send rates");
  sd->add_flag("--once", so.once, "one pass over what is due, then exit (for a timer or cron)");
  sd->add_option("--config", so_config, "config file");
  add_setting_flags(sd, so.flags);

  ConfigCheckOptions cc;
  std::string cc_config, cc_plugstack;
  auto* cf = app.add_subcommand("config", "check the configuration a job would use");
  auto* ck = cf->add_subcommand("check", "read every layer a job reads, compile the rules, greet the relay (nothing "
                                         "is sent), check the Slurm plugin's line and spool; exit 1 if anything "
                                         "fails");
  cf->require_subcommand(1);
  ck->add_flag("--json", cc.json, "one JSON document (for config management)");
  ck->add_flag("--no-relay", cc.no_relay, "do not contact the relay");
  ck->add_option("--config", cc_config, "this file instead of the user's");
  ck->add_option("--plugstack", cc_plugstack, "plugstack.conf to read (default /etc/slurm/plugstack.conf)");

  LogOptions lg;
  auto* l = app.add_subcommand("log", "print a run's captured output, optionally one stream only");
  l->add_option("run", lg.run, "run directory (or its output.log)")->required();
  l->add_option("--stream", lg.stream, "out | err | gpualert | all")
      ->check(CLI::IsMember({"out", "err", "gpualert", "all"}));

  ReportOptions rp;
  auto* r = app.add_subcommand("report", "the fleet's verdicts from Slurm's accounting: failures per class and whose "
                                         "move, faulty nodes and GPUs, users' repeated failures, GPU-hours per class");
  r->add_option("--since", rp.since, "start of the window, in sacct's forms (now-7days, 2026-11-01T08:00)")
      ->capture_default_str();
  r->add_option("--until", rp.until, "end of the window, in sacct's forms")->capture_default_str();
  r->add_option("--partition", rp.partitions, "only these partitions (comma-separated)");
  r->add_option("--user", rp.users, "only these users (comma-separated)");
  r->add_option("--nodelist", rp.nodelist, "only jobs that ran on these nodes (Slurm's node list form)");
  auto* rj = r->add_flag("--json", rp.json, "JSON for dashboards");
  r->add_flag("--csv", rp.csv, "CSV for spreadsheets: section,name,detail,jobs,gpu_hours,share")->excludes(rj);
  r->add_option("--input", rp.input, "read a saved `sacct --json` output ('-' for stdin) instead of running sacct");
  r->add_option("--top", rp.top, "rows in the fault and user tables")->check(CLI::Range(1, 1000))->capture_default_str();
  auto* rm = r->add_option("--mail", rp.mail_to, "also mail the text report: to these addresses, else infra_to, else admin_to "
                                                  "(e.g. weekly from cron: gpualert report --since now-7days --mail)")
                 ->expected(0, 1);
  r->add_option("--config", rp.config_file, "config file for the mail's relay and addresses");

  ShowOptions sw;
  auto* sh = app.add_subcommand("show", "one Slurm job's verdict: from accounting, and in full on the node that ran it "
                                        "(your own jobs; an administrator any)");
  sh->add_option("job", sw.job, "the job id (1234, or 1234_7 for an array task)")->required();
  sh->add_option("--spool", sw.spool, "the node's spool")->capture_default_str();

  // The diagnosis half of `gpualert run`, started by the launcher (not for users).
  int post_run_fd = -1;
  auto* pr = app.add_subcommand("post-run", "")->group("");
  pr->add_option("--input-fd", post_run_fd, "")->required();

  // The live watcher beside a running command, started by the launcher (not for users).
  int watch_input = -1, watch_lifeline = -1;
  auto* wt = app.add_subcommand("watch", "")->group("");
  wt->add_option("--input-fd", watch_input, "")->required();
  wt->add_option("--lifeline-fd", watch_lifeline, "")->required();

  const int parse_argc = split_run_command(argc, argv, rc);
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (rc.sub->parsed()) {
    if (!finish_run_options(rc)) return 2;
    run_command(rc.run);
  }
  if (pr->parsed()) return post_run_command(post_run_fd);
  if (wt->parsed()) return watch_command(watch_input, watch_lifeline);
  if (c->parsed()) {
    if (*ec) cls.exit_code = exit_code;
    for (const auto& f : cls_rules) cls.rules.emplace_back(f);
    return classify_command(cls);
  }
  if (o->parsed()) {
    if (!ob_config.empty()) ob.config_file = ob_config;
    return outbox_command(ob);
  }
  if (sd->parsed()) {
    if (!so_config.empty()) so.config_file = so_config;
    return sender_command(so);
  }
  if (ck->parsed()) {
    if (!cc_config.empty()) cc.config_file = cc_config;
    if (!cc_plugstack.empty()) cc.plugstack = cc_plugstack;
    return config_check_command(cc);
  }
  if (l->parsed()) return log_command(lg);
  if (r->parsed()) {
    rp.mail = rm->count() > 0;
    return report_command(rp);
  }
  if (sh->parsed()) return show_command(sw);
  return 2;
}
