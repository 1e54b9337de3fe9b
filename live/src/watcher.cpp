#include "gpualert/live/watcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "gpualert/live/alert_message.hpp"
#include "last_line.hpp"
#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/live_scan.hpp"
#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/live/conditions.hpp"
#include "gpualert/live/process_tree.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::live {
namespace {

using nlohmann::json;

// At most this much new output is read per round: a flood is caught up over several.
constexpr std::size_t kRoundBytes = 64u << 20;
// How long a cancelled command has to end after SIGTERM before it gets SIGKILL.
constexpr auto kCancelGrace = std::chrono::seconds(30);

}  // namespace

std::string progress_json(const Observation& o, const std::vector<std::string>& fired) {
  const auto& s = o.snap;
  const json alerts = fired;
  return json{{"updated", iso8601_utc(o.at)},
          {"last_output", iso8601_utc(o.last_output)},
          {"last_line", o.last_line},
          {"alive", o.alive},
          {"cpu_s", o.cpu_s ? json(*o.cpu_s) : json(nullptr)},
          {"bytes", s.bytes},
          {"lines", s.lines},
          {"step", s.step},
          {"total_steps", s.total_steps},
          {"epoch", s.epoch},
          {"total_epochs", s.total_epochs},
          {"losses", s.losses},
          {"nonfinite", s.nonfinite},
          {"last_loss", s.last_loss ? json(*s.last_loss) : json(nullptr)},
          {"alerts", alerts}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

void record_alert(const std::filesystem::path& run_dir, const Alert& a, const std::string& outcome) {
  const auto path = run_dir / "alerts.json";
  std::string before;
  try {
    before = read_file(path);
  } catch (const std::exception&) {
    // none yet
  }
  write_file_atomic(path, alerts_with(before, a, outcome));
}

}  // namespace

int watch(const WatchInput& in) {
  const auto& s = in.settings;
  std::string note;
  const classify::Classifier c = classify::Classifier::with_builtin_rules_or_alone(s.rule_files, note);
  if (!note.empty()) std::cerr << "gpualert watch: " << note << "\n";
  classify::LiveScan scan(c);
  UniqueFd log(::open(in.facts.log.c_str(), O_RDONLY | O_CLOEXEC));
  if (!log.valid()) {
    std::cerr << "gpualert watch: cannot read " << in.facts.log << ": " << std::strerror(errno) << "\n";
    return 0;
  }
  Limits limits{in.facts.started, s.stall_after, s.time_limit};
  limits.cancel_after_stall = s.cancel_after_stall;  // the user's own command: their choice alone
  Conditions cond(limits);
  Clock::time_point cancelled{};  // when the stalled command was sent SIGTERM (epoch: not)
  Observation o;
  o.last_output = in.facts.started;
  LastLine last;
  std::vector<char> buf(1 << 20);
  std::uint64_t size = 0;
  const int interval_ms = static_cast<int>(std::max<long long>(100, s.live_interval.count()));
  for (bool open = true; open;) {
    pollfd p{in.lifeline, POLLIN, 0};
    const int r = ::poll(&p, 1, interval_ms);
    if (r < 0 && errno != EINTR) break;
    if (r > 0) open = false;  // EOF or a byte: the launcher is done; one last look, then stop
    std::size_t round = 0;
    for (long n; round < kRoundBytes && (n = ::read(log.get(), buf.data(), buf.size())) > 0; round += static_cast<std::size_t>(n)) {
      const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      scan.feed(chunk);
      last.feed(chunk);
    }
    o.at = Clock::now();
    // Output grew when the file did: a flood still being caught up on is not news.
    struct stat st {};
    if (::fstat(log.get(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) != size) {
      size = static_cast<std::uint64_t>(st.st_size);
      o.last_output = o.at;
    }
    o.last_line = last.line;
    o.snap = scan.snapshot();
    const TreeUse use = tree_use(in.pid);
    o.alive = use.alive && open;
    o.cpu_s = use.cpu_s;
    // A command that ignores the SIGTERM of a cancel is killed half a minute later.
    if (cancelled != Clock::time_point{} && o.alive && o.at - cancelled > kCancelGrace) {
      signal_tree(in.pid, SIGKILL);
      cancelled = {};
    }
    for (const Alert& a : cond.observe(o)) {
      if (a.condition == "stall_cancel") {
        const int n = signal_tree(in.pid, SIGTERM);
        cancelled = o.at;
        std::cerr << "gpualert watch: stalled past cancel_after_stall: SIGTERM to " << n << " process(es)\n";
      }
      std::string outcome;
      try {
        config::Settings ds = s;
        AlertContext ac;
        ac.label = report::job_label(in.facts.command);
        ac.host = in.facts.host;
        ac.user = in.facts.user;
        ac.from = s.from;
        ac.to = config::mail_addresses(s.to);
        ac.started = in.facts.started;
        ac.now = o.at;
        if (!in.facts.log.empty()) ac.log_hint = in.facts.log.string();
        const notify::Message m = alert_message(a, ac);
        const report::Delivery d = report::deliver(m, ds, {}, alert_posts(a, ac, config::channels(s.to), m));
        outcome = d.describe(ds);
      } catch (const std::exception& e) {
        outcome = std::string("not sent: ") + e.what();
      }
      std::cerr << "gpualert watch: " << a.condition << ": " << a.headline << "; " << outcome << "\n";
      try {
        record_alert(in.facts.run_dir, a, outcome);
      } catch (const std::exception& e) {
        std::cerr << "gpualert watch: alerts.json: " << e.what() << "\n";
      }
    }
    try {
      std::vector<std::string> fired;
      for (const auto& a : cond.fired()) fired.push_back(a.condition);
      write_file_atomic(in.facts.run_dir / "progress.json", progress_json(o, fired));
    } catch (const std::exception& e) {
      std::cerr << "gpualert watch: progress.json: " << e.what() << "\n";
    }
  }
  return 0;
}

std::string alerts_with(const std::string& before, const Alert& a, const std::string& outcome) {
  json all = json::array();
  try {
    if (!before.empty()) all = json::parse(before);
    if (!all.is_array()) all = json::array();
  } catch (const std::exception&) {
    all = json::array();
  }
  all.push_back({{"condition", a.condition},
                 {"headline", a.headline},
                 {"true_since", iso8601_utc(a.true_since)},
                 {"sent_at", iso8601_utc(Clock::now())},
                 {"delivery", outcome}});
  return all.dump(2) + "\n";
}

std::vector<std::string> sent_alerts(const std::filesystem::path& run_dir) {
  std::vector<std::string> out;
  try {
    std::ifstream in(run_dir / "alerts.json");
    if (!in) return out;
    for (const auto& a : json::parse(in))
      out.push_back(a.value("sent_at", std::string()) + ": " + a.value("condition", std::string()) + " (" +
                    a.value("headline", std::string()) + ")");
  } catch (const std::exception&) {
    out.push_back("alerts.json is unreadable");
  }
  return out;
}

}  // namespace gpualert::live
