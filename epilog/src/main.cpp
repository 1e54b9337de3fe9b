// gpualert-epilog: started detached by the SPANK plugin's job_epilog on every
// node of a finished job. On the job's first node it waits for the final state
// in accounting, gathers every node's step records and logs from the spool,
// classifies, and delivers one message (outbox first). It never reports an
// error to Slurm: it is not Slurm's child any more.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <iostream>

#include "detach.hpp"
#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/verdict_format.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/config/addresses.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/config/defaults.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/config/recipient_policy.hpp"
#include "gpualert/live/watcher.hpp"
#include "gpualert/report/channel_posts.hpp"
#include "gpualert/report/delivery.hpp"
#include "gpualert/report/notify_choice.hpp"
#include "gpualert/report/infra_alert.hpp"
#include "gpualert/report/message_builder.hpp"
#include "gpualert/report/run_evidence.hpp"
#include "gpualert/spool/job_start_capture.hpp"
#include "gpualert/spool/spool_dir.hpp"
#include "gpualert/spool/spool_expiry.hpp"
#include "as_job_user.hpp"
#include "user_settings.hpp"
#include "controller_view.hpp"
#include "job_env.hpp"
#include "job_facts.hpp"
#include "job_logs.hpp"
#include "job_recipients.hpp"
#include "job_start_view.hpp"
#include "launch_failure.hpp"
#include "live_watch.hpp"
#include "notification_claim.hpp"
#include "node_events.hpp"
#include "output_silence.hpp"
#include "gpualert/common/run_program.hpp"
#include "accounting_verdict.hpp"
#include "slurm_accounting.hpp"

using namespace gpualert;
using namespace gpualert::epilog;

namespace {

// The helper's own log lives next to the job's logs, for the admin (root 0600;
// close-on-exec, so sacct and scontrol never inherit it).
int g_log = -1;
void note(const std::string& msg) {
  const std::string line = iso8601_utc(std::chrono::system_clock::now()) + " " + msg + "\n";
  if (g_log < 0 || ::write(g_log, line.data(), line.size()) < 0) std::cerr << line;
}

void open_helper_log(const spool::DirFd& dir, const std::string& node) {
  const std::string name = "helper-" + spool::safe_component(node) + ".log";
  g_log = ::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

// Each recipient once, in the order first named.
void add_unique(std::vector<std::string>& to, const std::vector<std::string>& more) {
  for (const auto& a : more)
    if (std::find(to.begin(), to.end(), a) == to.end()) to.push_back(a);
}

// --job-start: the prolog's record, from the environment Slurm gives a Prolog= script.
int take_job_start_record(const std::string& spool_path, std::optional<std::uint32_t> job, const std::string& gpus_dir) {
  try {
    const auto env = read_job_env(job);
    if (!env) {
      std::cerr << "gpualert-epilog --job-start: no job id (SLURM_JOB_ID or --job)\n";
      return 0;
    }
    spool::JobStartInputs in;
    in.job = env->job;
    in.uid = env->uid;
    in.node = env->node.empty() ? config::host_name() : env->node;
    in.slurm_job_gpus = env->gpus;
    if (const char* c = std::getenv("CUDA_VISIBLE_DEVICES")) in.cuda_visible_devices = std::string(c);
    in.gpus_dir = gpus_dir;
    std::string why;
    if (!spool::leave_job_start(spool_path, in, why))
      std::cerr << "gpualert-epilog --job-start: job " << env->job << ": no record: " << why << "\n";
  } catch (const std::exception& e) {
    std::cerr << "gpualert-epilog --job-start: " << e.what() << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // slurmd gives epilogs no PATH; the tools below are found in the usual places.
  ::setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 0);
  CLI::App app{"gpualert-epilog: diagnose a finished Slurm job and notify its owner"};
  std::string spool_path = "/var/spool/gpualert", conf, to, allow_to;
  config::RecipientPolicy rule;
  std::optional<std::uint32_t> job;
  int max_wait = 120, node_wait = 20, keep_days = 14;
  bool any_node = false;
  app.add_option("--spool", spool_path, "the plugin's spool");
  app.add_option("--conf", conf, "site configuration file");
  app.add_option("--to", to, "recipients given with --gpualert=...");
  app.add_option("--allow-to", allow_to, "the site's recipient patterns (plugstack allow_to=)");
  app.add_option("--max-to", rule.max, "the site's recipient limit (plugstack max_to=)");
  app.add_option("--job", job, "job id (default: $SLURM_JOB_ID)");
  app.add_option("--max-wait", max_wait, "seconds to wait for a final state in accounting");
  app.add_option("--node-wait", node_wait, "seconds to wait for other nodes' step records");
  app.add_option("--keep-days", keep_days, "days a finished job's spool directory is kept")
      ->check(CLI::Range(1, 3650));
  app.add_flag("--any-node", any_node, "notify even when this is not the job's first node");
  bool job_start = false;
  std::string gpus_dir = "/proc/driver/nvidia/gpus";
  app.add_flag("--job-start", job_start,
               "run as slurm.conf's Prolog= instead of the plugin's job prolog: leave the job-start record "
               "(the job's GPUs, kernel-log positions, earlier GPU faults) and exit 0");
  app.add_option("--gpus-dir", gpus_dir, "where the NVIDIA driver lists the GPUs (with --job-start)");
  bool live = false;
  std::optional<std::uint32_t> uid;
  std::string node;
  app.add_flag("--live", live,
               "watch the running job (started by the plugin's job_prolog): live alerts from the tasks' samples "
               "until the job's epilog ends the watch");
  app.add_option("--uid", uid, "the job's user (with --live)");
  app.add_option("--node", node, "this node's Slurm name (with --live)");
  CLI11_PARSE(app, argc, argv);
  // A failing Prolog= drains the node: whatever happens here, the exit status is 0.
  if (job_start) return take_job_start_record(spool_path, job, gpus_dir);
  if (live) {
    if (!job || !uid || node.empty()) {
      std::cerr << "gpualert-epilog --live needs --job, --uid and --node\n";
      return 0;
    }
    rule.allow = config::split_patterns(allow_to);
    return run_live_watch({spool_path, conf, to, allow_to, rule, *job, *uid, node});
  }

  try {
    const auto env = read_job_env(job);
    if (!env) {
      note("no job id (SLURM_JOB_ID or --job)");
      return 0;
    }
    std::string why;
    auto spool = spool::open_spool_root(spool_path, why);
    std::optional<spool::DirFd> dir;
    if (spool) dir = spool::open_job_dir(*spool, env->job, env->uid, false, why);
    if (spool && !dir && why.find("another job") != std::string::npos)
      spool::admin_log(*spool, "job " + std::to_string(env->job) + ": " + why);
    if (dir) open_helper_log(*dir, env->node);
    note("job " + std::to_string(env->job) + " on " + env->node + ": moved out of " +
         std::to_string(leave_job_cgroups()) + " cgroup hierarchies");
    if (!dir) note("no job directory in the spool (" + why + "): diagnosing from accounting only");

    const auto nodes = expand_nodelist(env->nodelist);
    if (!any_node && !nodes.empty() && !env->node.empty() && nodes.front() != env->node) {
      note("not the job's first node (" + nodes.front() + "); that node's helper notifies");
      // What this node's kernel saw (an Xid, an OOM kill) is evidence the reporting node lacks.
      config::Loader early;
      if (!conf.empty()) early.apply_file(conf);
      if (dir && early.settings().kernel_events) {
        std::vector<std::string> problems;
        const auto [from, until] = node_window(read_step_records(*dir, env->uid, problems), env->node);
        std::string msg, start_note;
        const auto rec = read_job_start(*dir, env->node, env->job, env->uid, start_note);
        note(start_note);
        if (from.time_since_epoch().count() || rec)
          publish_node_events(*dir, env->gid, env->node, env->restart_count, from,
                              until.time_since_epoch().count() ? until : std::chrono::system_clock::now(),
                              rec ? &*rec : nullptr, msg);
        else
          msg = "no step record of this node gives the job's window: no kernel events left for the reporting node";
        note(msg);
      }
      return 0;
    }

    // A heterogeneous job is one job to its user: one message, about all of its
    // components, kept in its leader's directory (SLURM_HET_JOB_ID names the leader).
    const std::uint32_t report_job = env->het_job.value_or(env->job);
    std::optional<spool::DirFd> own_dir;
    if (report_job != env->job && spool) {
      own_dir = std::move(dir);
      dir = spool::open_job_dir(*spool, report_job, env->uid, true, why);
      if (!dir) note("the leader's directory (job " + std::to_string(report_job) + ") cannot be used: " + why);
      if (dir && leader_reports(*dir, env->restart_count, std::chrono::seconds(node_wait))) {
        note("component of heterogeneous job " + std::to_string(report_job) + ": its leader's helper reports");
        return 0;
      }
      note("component of heterogeneous job " + std::to_string(report_job) + ": no word from its leader's helper, so this one reports");
    }

    ControllerView ctl = controller_view(report_job);
    const JobAccounting acct = query_job(report_job, std::chrono::seconds(max_wait), [&] {
      ctl = controller_view(report_job);
      return ctl.restarts && *ctl.restarts > env->restart_count;
    }, env->het_job.has_value());
    note("accounting: " + (acct.available ? acct.state_detail + " exit " + acct.exit_code : acct.error));
    const auto restarts = ctl.restarts;
    if (acct.requeued) {
      note("the job was requeued (now " + acct.state + ", restarts " + std::to_string(restarts.value_or(-1)) +
           "); the helper of its last run reports, once");
      return 0;
    }
    // Claimed only now: the helper of a run that was requeued must not take the
    // marker its job's last run needs (both see the same restart count).
    std::string stale;
    const bool claimed = !dir || claim_notification(*dir, env->restart_count, acct.start, stale);
    if (!stale.empty()) note(stale);
    if (!claimed) {
      note("this job run was already notified");
      return 0;
    }

    // The other components' directories (a heterogeneous job's).
    std::vector<spool::DirFd> component_dirs;
    if (own_dir) component_dirs.push_back(std::move(*own_dir));
    for (const auto c : acct.components)
      if (c != env->job && spool)
        if (auto d = spool::open_job_dir(*spool, c, env->uid, false, why)) component_dirs.push_back(std::move(*d));
    std::vector<const spool::DirFd*> more_dirs;
    for (const auto& d : component_dirs) more_dirs.push_back(&d);
    config::Loader loader;
    loader.apply_value("outbox", (std::filesystem::path(spool_path) / "outbox").string(), "default");
    if (!conf.empty()) loader.apply_site_file(conf);
    // The spool is shared by every job on the node: keep room for one whole message.
    const std::uint64_t reserve = loader.settings().outbox_reserve ? loader.settings().outbox_reserve
                                                                   : loader.settings().attach_budget + (2ULL << 20);
    JobLogs logs;
    const auto report_path = std::filesystem::path(spool_path) / "jobs" / std::to_string(report_job);
    if (dir) logs = collect_job_logs(*dir, report_path, nodes, std::chrono::seconds(node_wait), env->restart_count,
                                   env->uid, env->gid, limits_for_space(dir->get(), reserve), more_dirs);
    for (const auto& p : logs.problems) note(p);

    std::vector<std::string> recipients;
    if (!to.empty()) config::parse_destination_list(to, recipients, why);
    // srun --gpualert=... inside the script: the steps that asked name theirs (the
    // plugin held them to the site's recipient rule when the step started).
    for (const auto& step : logs.steps) add_unique(recipients, step.to);
    rule.allow = config::split_patterns(allow_to);
    const JobRecipients chosen = job_recipients(recipients, ctl.mail_user, rule, env->user, note);
    config::Settings settings = loader.settings();
    settings.outbox_reserve = reserve;
    if (!chosen.to.empty()) settings.to = chosen.to;
    for (const auto& p : loader.problems()) note("config: " + p.text());
    // The user's own choices: whether to be told, where by default, HTML or not.
    for (const auto& n : apply_user_file(settings, JobUser{env->uid, env->gid, groups_of(env->user, env->gid)},
                                         env->user, chosen.named, rule))
      note(n);

    JobFacts jf = job_facts(*env, acct, logs);
    // What the live watcher already told the user while the job ran.
    for (const auto& a : live::sent_alerts(report_path)) jf.facts.extra.emplace_back("live alert", a);
    classify::RunStatus status;
    status.exit_code = jf.exit_code;
    if (acct.final) status.slurm_state = acct.state;
    status.hang_after_s = static_cast<double>(settings.hang_after.count()) / 1000.0;
    if (const auto e = parse_elapsed(acct.elapsed)) status.elapsed_s = static_cast<double>(e->count()) / 1000.0;
    if (const auto l = parse_elapsed(acct.timelimit)) status.time_limit_s = static_cast<double>(l->count()) / 1000.0;
    // A requeued job's later run should continue from the earlier run's checkpoint.
    if (const auto sig = launch_error_signal(acct, logs)) {
      // Not a signal: slurmstepd's own launch error (output file, working directory).
      const bool from_env = !env->std_out.empty() || !env->std_err.empty();
      const LaunchFailure lf = explain_launch_failure(
          *sig, acct.workdir.empty() ? env->work_dir : acct.workdir,
          from_env ? std::vector<std::string>{env->std_out, env->std_err} : std::vector<std::string>{ctl.std_out, ctl.std_err},
          JobUser{env->uid, env->gid, groups_of(env->user, env->gid)}, env->user);
      note(lf.what);
      status.launch_failure = lf.what;
      status.launch_errno = lf.error;
      status.exit_code.reset();
      jf.facts.exec_failed = true;
      jf.facts.wait_status.reset();
    }
    if (env->restart_count > 0)
      status.resume_expected = "Slurm requeued the job " + std::to_string(env->restart_count) +
                               " time(s), so this run should have continued where the previous one stopped";
    if (dir) {
      // Hang vs timeout needs how long the job had been silent when it ended.
      std::vector<std::string> problems;
      const auto stats = stat_task_logs(*dir, logs, problems);
      for (const auto& p : problems) note(p);
      auto known = [](std::chrono::system_clock::time_point t) -> std::optional<std::chrono::system_clock::time_point> {
        if (t.time_since_epoch().count() == 0) return std::nullopt;
        return t;
      };
      const OutputSilence silence = output_silence(known(jf.facts.ended), known(jf.facts.started), stats);
      status.seconds_silent_before_end = silence.seconds;
      note(silence.note);
    }
    if (settings.kernel_events) {
      std::vector<std::string> problems;  // the kernel log of this node, for the job's window
      const auto end = jf.facts.ended.time_since_epoch().count() ? jf.facts.ended : std::chrono::system_clock::now();
      const auto start = jf.facts.started.time_since_epoch().count() ? jf.facts.started : end - jf.facts.duration;
      // The job's own GPUs on this node (another job's GPU fault is then a neighbour's),
      // from the prolog's job-start record, which also says where the kernel's logs stood
      // when the job began and which GPU faults came before it. The other nodes' records,
      // gathered below, say themselves whether they name the job's GPU there.
      std::string start_note;
      const auto rec = dir ? read_job_start(*dir, env->node, env->job, env->uid, start_note) : std::nullopt;
      note(start_note);
      std::optional<report::KernelStart> positions;
      auto from = start;
      if (rec) {
        if (!apply_job_gpus(status, *rec) && env->gpus)
          report::add_job_gpus(status, *env->gpus, events::IndexMeaning::device_minor, problems);
        positions = kernel_start(*rec);
        from = start_time(*rec);
        std::string held;
        for (const auto& g : rec->gpus)
          held += (held.empty() ? "" : ", ") + g.bus_id + (g.minor >= 0 ? " (/dev/nvidia" + std::to_string(g.minor) + ")" : "");
        if (!held.empty()) jf.facts.extra.push_back({"GPUs", held});
      } else if (env->gpus) {
        report::add_job_gpus(status, *env->gpus, events::IndexMeaning::device_minor, problems);
      }
      report::add_kernel_events(status, from, end, problems, positions ? &*positions : nullptr);
      for (const auto& step : logs.steps)
        for (const auto& t : step.tasks)
          if (t.pid > 0) status.pids.push_back(t.pid);
      // Slurm's cgroup plugins put every process of the job under ".../job_<id>/".
      status.uid = static_cast<int>(env->uid);
      status.cgroup_marks.push_back("/job_" + std::to_string(env->job));
      for (const auto& p : problems) note(p);
      if (dir && nodes.size() > 1) {
        // The other nodes' kernel events, left in the spool by their helpers.
        std::vector<std::string> missing, bad;
        const auto others = gather_node_events(*dir, nodes, env->node, env->restart_count,
                                               std::chrono::seconds(std::min(node_wait, 30)), missing, bad);
        for (const auto& o : others) {
          for (const auto& k : o.events) {
            classify::KernelEvent e = k;
            e.source = o.node + ": " + k.source;
            // Another node's GPU record is compared with that node's GPUs, never with this
            // node's (addresses repeat across nodes): without its word, it counts.
            if (!e.on_job_gpu)
              if (const auto pe = events::parse_event_text(e.text); pe && !pe->bus_id.empty()) e.on_job_gpu = true;
            status.events.push_back(std::move(e));
          }
          if (!o.read_any) missing.push_back(o.node + " (no kernel log readable there)");
        }
        for (const auto& b : bad) note(b);
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        note("kernel events from " + std::to_string(others.size()) + " other node(s)" +
             (missing.empty() ? "" : "; not read: " + list));
        if (!missing.empty()) jf.facts.extra.push_back({"kernel log not read on", list});
      }
    }
    std::string rules_note;
    const auto classifier = classify::Classifier::with_builtin_rules_or_alone(settings.rule_files, rules_note);
    if (!rules_note.empty()) {
      note(rules_note);
      jf.facts.extra.push_back({"site rules", rules_note});
    }
    // The user's log is read as the user; without it (or if that fails) the
    // verdict rests on what root knows: accounting and the kernel's records.
    std::optional<classify::Verdict> read_as_user;
    // A log too big to read in time is read in part (its start, then its end) and said so.
    status.read_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(max_wait) / 2;
    if (!logs.combined.empty()) {
      read_as_user = classify_as_user(env->uid, env->gid, [&] { return classifier.classify_file(logs.combined, status); },
                                      std::chrono::seconds(max_wait), why);
      if (!read_as_user) note("the log could not be classified as uid " + std::to_string(env->uid) + ": " + why);
    }
    const classify::Verdict v = read_as_user ? *read_as_user : classifier.classify_text("", status);
    if (dir) spool::write_atomic_at(*dir, "verdict.json", classify::to_json(v).dump(2) + "\n", env->uid, env->gid, why);

    report::MessageInputs mi;
    mi.from = settings.from;
    mi.to = config::mail_addresses(settings.to);
    mi.budget = settings.attach_budget;
    mi.tail_lines = settings.tail_lines;
    mi.html = settings.html;
    // Stored first without attachments, then completed with them if that goes well.
    mi.attach_give_up = std::chrono::steady_clock::now() + std::chrono::seconds(max_wait) / 2;
    report::MessageInputs quick = mi;
    quick.without_attachments = true;
    // An array task is known as 65_19; its array's later failures fold into one digest.
    const bool array_task = !ctl.array_job_id.empty();
    if (ctl.array_tasks_mail) settings.array_mail = "task";
    const auto with_job = [&](notify::Message m) {
      m.extra_headers.push_back({"X-Gpualert-Job", std::to_string(report_job)});
      m.record["job"] = std::to_string(report_job);
      if (array_task) {
        m.extra_headers.push_back({"X-Gpualert-Array", ctl.array_job_id + "_" + ctl.array_task_id});
        m.record["array"] = ctl.array_job_id;
        m.record["task"] = ctl.array_job_id + "_" + ctl.array_task_id;
      }
      return m;
    };
    // The user's choice (raised by the site's floor): the verdict is kept either way.
    if (const auto choice = report::notify_choice(v, jf.facts, settings); !choice.send) {
      note("verdict " + v.cls + "; " + choice.why);
    } else {
      const notify::Message first = with_job(report::build_message(v, jf.facts, quick));
      const report::Delivery d =
          report::deliver(first, settings,
                          [&]() -> std::optional<notify::Message> {
                            return with_job(report::build_message(v, jf.facts, mi));
                          },
                          report::build_posts(v, jf.facts, config::channels(settings.to), first));
      note("verdict " + v.cls + "; mail: " + d.describe(settings));
    }
    // Into the job's accounting record too: the fleet's view (sacct, gpualert report).
    if (settings.accounting) note(record_in_accounting(report_job, v, env->node, status.gpus));
    // A fault of the cluster also goes to the admins: one message per node and GPU,
    // listing every job it ended (this helper sends it if it held the first report).
    const report::InfraJob ij{env->node, std::to_string(report_job), env->user, acct.exit_code,
                              iso8601_utc(jf.facts.ended.time_since_epoch().count() ? jf.facts.ended
                                                                                    : std::chrono::system_clock::now()),
                              status.gpus};
    if (const auto a = report::hold_for_admins(v, ij, settings); a.held || !a.error.empty())
      note("cluster fault: " + report::send_admins_message(a, settings));
    if (spool)
      if (const auto n = spool::expire_job_dirs(*spool, std::chrono::hours(24) * keep_days))
        note("removed " + std::to_string(n) + " job directories older than " + std::to_string(keep_days) + " days");
  } catch (const std::exception& e) {
    note(std::string("failed: ") + e.what());
  }
  return 0;
}
