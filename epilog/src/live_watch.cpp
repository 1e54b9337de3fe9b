#include "live_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "as_job_user.hpp"
#include "controller_view.hpp"
#include "detach.hpp"
#include "job_facts.hpp"
#include "job_recipients.hpp"
#include "user_settings.hpp"
#include "gpualert/common/run_program.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/config/defaults.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/config/loader.hpp"
#include "gpualert/live/job_watch.hpp"
#include "gpualert/live/watcher.hpp"
#include "gpualert/report/delivery.hpp"
#include "gpualert/config/live_choice.hpp"
#include "gpualert/spool/spool_dir.hpp"
#include "gpualert/live/alert_message.hpp"

namespace gpualert::epilog {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

constexpr std::size_t kMaxAlertLine = 64u << 10;

struct Notes {
  int fd = -1;
  void operator()(const std::string& msg) const {
    const std::string line = iso8601_utc(Clock::now()) + " " + msg + "\n";
    if (fd < 0 || ::write(fd, line.data(), line.size()) < 0) std::cerr << line;
  }
};

json alert_json(const live::Alert& a) {
  return {{"condition", a.condition},
          {"headline", a.headline},
          {"facts", a.facts},
          {"true_since", std::chrono::duration_cast<std::chrono::milliseconds>(a.true_since.time_since_epoch()).count()}};
}

// The child's word, held to what an alert can be: it runs as the user, who could make
// it say anything, so only short printable text of a known condition gets through.
std::optional<live::Alert> alert_from(const std::string& line) {
  try {
    const json j = json::parse(line);
    live::Alert a;
    a.condition = j.at("condition").get<std::string>();
    if (a.condition != "stall" && a.condition != "nan" && a.condition != "divergence" && a.condition != "wont_finish" &&
        a.condition != "capture_lost" && a.condition != "stall_cancel")
      return std::nullopt;
    a.headline = one_line(j.at("headline").get<std::string>(), 200);
    for (const auto& f : j.at("facts")) {
      if (a.facts.size() >= 8) break;
      a.facts.push_back(one_line(f.get<std::string>(), 300));
    }
    a.true_since = Clock::time_point(std::chrono::milliseconds(j.at("true_since").get<long long>()));
    return a;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void record_alert(const spool::DirFd& dir, const live::Alert& a, const std::string& outcome, const Notes& note) {
  std::string why;
  const auto before = spool::read_at(dir, "alerts.json", 1u << 20, why);
  if (!spool::write_atomic_at(dir, "alerts.json", live::alerts_with(before.value_or(""), a, outcome), 0, 0, why))
    note("alerts.json: " + why);
}

// The child: the job's user from here on; it only reads and says what fired.
[[noreturn]] void watch_as_user(const JobUser& user, int out, const live::JobWatch& w) {
  if (!become_user(user)) ::_exit(3);
  const auto say = [out](const json& j) {
    const std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    for (std::size_t off = 0; off < line.size();) {
      const ssize_t n = ::write(out, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(5);
      off += static_cast<std::size_t>(n);
    }
  };
  try {
    live::watch_job(
        w, [&](const live::Alert& a) { say(alert_json(a)); },
        [&](const live::JobRound& r) { say({{"picture", json::parse(live::progress_json(r.observation, r.alerts))}}); });
  } catch (...) {
    ::_exit(4);
  }
  ::_exit(0);
}

// scancel as the job's user (Slurm records who ended it; a user may end their own job).
std::string cancel_as_user(const JobUser& user, const std::string& job) {
  std::string why;
  const auto r = run_as_user(user, [&] {
    const auto p = run_program({"scancel", job}, std::chrono::seconds(20));
    if (!p) return std::string("scancel did not run");
    if (!WIFEXITED(p->wait_status) || WEXITSTATUS(p->wait_status) != 0)
      return "scancel failed: " + one_line(p->err, 200);
    return std::string("scancel " + job + " done");
  }, std::chrono::seconds(30), why);
  return r ? *r : "scancel not run: " + why;
}

}  // namespace

std::string live_end_marker(const std::string& node) { return "live-end." + spool::safe_component(node); }

int run_live_watch(const LiveWatchArgs& args) {
  Notes note;
  try {
    std::string why;
    auto spool = spool::open_spool_root(args.spool_path, why);
    if (!spool) return 0;
    auto dir = spool::open_job_dir(*spool, args.job, args.uid, true, why);
    if (!dir) {
      spool::admin_log(*spool, "job " + std::to_string(args.job) + ": live watcher: " + why);
      return 0;
    }
    note.fd = ::openat(dir->get(), ("live-" + spool::safe_component(args.node) + ".log").c_str(),
                       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    leave_job_cgroups();
    const std::string job = std::to_string(args.job);

    config::Loader loader;
    loader.apply_value("outbox", (std::filesystem::path(args.spool_path) / "outbox").string(), "default");
    if (!args.conf.empty()) loader.apply_site_file(args.conf);
    config::Settings settings = loader.settings();

    // Only the job's first node watches. The prolog's environment names the job's nodes
    // (expanding the list asks no daemon), so the other nodes of a big job leave without
    // asking slurmctld anything; only without it is the controller asked.
    const auto first_node_only = [&](const std::string& list) {
      const auto nodes = expand_nodelist(list);
      if (nodes.empty() || nodes.front() == args.node) return false;
      note("job " + job + ": not the job's first node (" + nodes.front() + "): no live watcher here");
      return true;
    };
    const char* env_list = std::getenv("SLURM_JOB_NODELIST");
    if (!env_list || !*env_list) env_list = std::getenv("SLURM_NODELIST");
    if (env_list && *env_list && first_node_only(env_list)) return 0;
    // The job as slurmctld sees it: its limit, name and --mail-user (and nodes, if need be).
    ControllerView ctl = controller_view(args.job);
    for (int i = 0; i < 5 && ctl.node_list.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      ctl = controller_view(args.job);
    }
    if ((!env_list || !*env_list) && first_node_only(ctl.node_list)) return 0;

    struct passwd pw {};
    struct passwd* found = nullptr;
    char buf[4096];
    std::string user;
    gid_t gid = 0;
    if (::getpwuid_r(args.uid, &pw, buf, sizeof buf, &found) == 0 && found) {
      user = found->pw_name;
      gid = found->pw_gid;
    } else {
      note("job " + job + ": uid " + std::to_string(args.uid) + " has no passwd entry: no live watcher");
      return 0;
    }
    const JobUser ju{args.uid, gid, groups_of(user, gid)};

    // The recipients, as for the final message: --gpualert=, else --mail-user, else the user.
    std::vector<std::string> recipients;
    if (!args.to.empty()) config::parse_destination_list(args.to, recipients, why);
    config::RecipientPolicy rule = args.rule;
    rule.allow = config::split_patterns(args.allow_to);
    const JobRecipients chosen = job_recipients(recipients, ctl.mail_user, rule, user, note);
    settings.to = chosen.to;
    for (const auto& n : apply_user_file(settings, ju, user, chosen.named, rule)) note(n);
    if (const auto why_not = config::why_no_live_alerts(settings); !why_not.empty()) {
      note("job " + job + ": " + why_not);
      return 0;
    }

    live::JobWatch w;
    w.dir = dir->get();
    w.node = spool::safe_component(args.node);
    w.end_marker = live_end_marker(args.node);
    w.started = Clock::now();
    w.stall_after = settings.stall_after;
    w.interval = std::max(settings.live_interval, std::chrono::milliseconds(100));
    w.rule_files = settings.rule_files;
    // Ending a stalled job: the site allows it (allow_cancel) and the user or site chose when.
    const bool may_cancel = settings.allow_cancel && settings.cancel_after_stall.count() > 0;
    if (may_cancel) w.cancel_after_stall = settings.cancel_after_stall;
    const auto limit = ctl.time_limit.empty() ? std::nullopt : parse_elapsed(ctl.time_limit);
    if (limit) w.time_limit = *limit;
    // Past the limit (and Slurm's grace for ending it) the job is over, epilog or not.
    w.give_up = w.started + (limit ? *limit + std::chrono::minutes(30) : std::chrono::hours(24 * 14));
    note("job " + job + " on " + args.node + ": live watcher for " + user + " (stall after " +
         live::human_minutes(w.stall_after) + (limit ? ", limit " + ctl.time_limit : "") + ")");

    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return 0;
    const pid_t child = ::fork();
    if (child < 0) return 0;
    if (child == 0) {
      ::close(p[0]);
      watch_as_user(ju, p[1], w);
    }
    ::close(p[1]);

    live::AlertContext ac;
    ac.label = "job " + job + (ctl.job_name.empty() ? "" : " (" + one_line(ctl.job_name, 60) + ")");
    ac.host = args.node;
    ac.user = user;
    ac.from = settings.from;
    ac.to = config::mail_addresses(settings.to);
    ac.started = w.started;
    ac.more_facts = {"scancel " + job + " ends it and frees its GPUs"};
    ac.headers = {{"X-Gpualert-Job", job}};
    ac.record = {{"job", job}};
    std::string pending;
    char rbuf[8192];
    for (;;) {
      const ssize_t n = ::read(p[0], rbuf, sizeof rbuf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(rbuf, static_cast<std::size_t>(n));
      if (pending.size() > kMaxAlertLine && pending.find('\n') == std::string::npos) {
        note("the watcher said too much at once: stopped");
        ::kill(child, SIGKILL);
        break;
      }
      for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
        const std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        if (line.rfind("{\"picture\":", 0) == 0) {
          // The job's live picture, for its user (gpualert show, cat): theirs to read.
          try {
            const std::string text = json::parse(line).at("picture").dump(2) + "\n";
            if (!spool::write_atomic_at(*dir, "progress.json", text, args.uid, gid, why)) note("progress.json: " + why);
          } catch (const std::exception&) {
            note("not a picture from the watcher: ignored");
          }
          continue;
        }
        const auto a = alert_from(line);
        if (!a) {
          note("not an alert from the watcher: ignored");
          continue;
        }
        ac.now = Clock::now();
        if (a->condition == "stall_cancel") {
          if (!may_cancel) {
            note("the watcher asked to cancel, which this job does not allow: ignored");
            continue;
          }
          note("stalled past cancel_after_stall: " + cancel_as_user(ju, job));
        }
        std::string outcome;
        try {
          config::Settings ds = settings;
          const notify::Message m = live::alert_message(*a, ac);
          const report::Delivery d =
              report::deliver(m, ds, {}, live::alert_posts(*a, ac, config::channels(settings.to), m));
          outcome = d.describe(ds);
        } catch (const std::exception& e) {
          outcome = std::string("not sent: ") + e.what();
        }
        note("live " + a->condition + ": " + a->headline + "; " + outcome);
        record_alert(*dir, *a, outcome, note);
      }
    }
    ::close(p[0]);
    int st = 0;
    while (::waitpid(child, &st, 0) < 0 && errno == EINTR) {
    }
    note("job " + job + ": live watcher ended (" +
         (WIFEXITED(st) ? "status " + std::to_string(WEXITSTATUS(st)) : "signal " + std::to_string(WTERMSIG(st))) + ")");
  } catch (const std::exception& e) {
    note(std::string("live watcher failed: ") + e.what());
  }
  if (note.fd >= 0) ::close(note.fd);
  return 0;
}

}  // namespace gpualert::epilog
