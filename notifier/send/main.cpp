// gpualert-send: delivers messages from gpualert outboxes (spools) to an SMTP relay.
// The only program of gpualert that loads libcurl. It answers on stdout:
//   --id ID : "ok" or "error <smtp code> <reason>"
//   --all   : "summary <sent> <failed> <deferred> <busy>" then "failed <id>: <reason>" lines
//   --once  : one pass over every --outbox, only messages that are due (the sender
//             for a timer or cron); the same summary per outbox
//   --serve : passes every --interval seconds until SIGTERM (the sender service)
//   --probe : no outbox, nothing sent: greets the relay as a send would (EHLO,
//             STARTTLS, AUTH), says NOOP, and prints one JSON line of what it saw
#include <CLI/CLI.hpp>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/outbox_flush.hpp"
#include "gpualert/notifier/relay_probe.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

using namespace gpualert::notify;

namespace {

std::atomic<bool> g_stop{false};
void on_stop(int) { g_stop = true; }

void print_summary(const FlushReport& r) {
  std::cout << "summary " << r.sent << " " << r.failed << " " << r.deferred << " " << r.busy << "\n";
  for (const auto& e : r.errors) std::cout << "failed " << e << "\n";
  std::cout.flush();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpualert-send: deliver messages waiting in gpualert outboxes"};
  std::vector<std::string> outboxes;
  std::string url, tls = "auto", user, password_file, ca_file, id, admin_from, channels_file;
  std::vector<std::string> admins;
  long timeout_ms = 15000, interval_s = 30, retry_base_s = 60, retry_max_s = 3600, expire_s = 72 * 3600;
  int rate_global = 0, rate_rcpt = 0;
  long digest_quiet_s = 60, digest_window_s = 600, infra_gather_s = 120, infra_window_s = 6 * 3600;
  bool all = false, once = false, serve = false, no_verify = false;
  app.add_option("--outbox", outboxes, "outbox (spool) directory; repeatable with --once/--serve");
  app.add_option("--smtp", url, "relay URL (smtp:// or smtps://); empty: none (channels' posts only)")->required();
  app.add_option("--channels", channels_file, "the channels file: each chat / webhook channel's URL");
  app.add_option("--tls", tls, "auto | required | off")->check(CLI::IsMember({"auto", "required", "off"}));
  app.add_option("--user", user, "AUTH user");
  app.add_option("--password-file", password_file, "file holding the AUTH password");
  app.add_option("--ca-file", ca_file, "CA bundle for the relay");
  app.add_flag("--no-verify-peer", no_verify, "do not verify the relay's certificate");
  app.add_option("--timeout-ms", timeout_ms, "bound for one SMTP transaction");
  app.add_option("--admin", admins, "told when a message is given up (repeatable)");
  app.add_option("--admin-from", admin_from, "sender address of those notices");
  app.add_option("--retry-base", retry_base_s, "seconds before the first retry (doubling, with jitter)")
      ->check(CLI::Range(1L, 86400L));
  app.add_option("--retry-max", retry_max_s, "longest wait between retries, seconds")->check(CLI::Range(1L, 604800L));
  app.add_option("--expire-after", expire_s, "give a message up when older than this, seconds")
      ->check(CLI::Range(1L, 31L * 86400L));
  app.add_option("--rate-global", rate_global, "most messages sent per minute (0: no limit)")->check(CLI::Range(0, 100000));
  app.add_option("--rate-recipient", rate_rcpt, "most messages per recipient per minute (0: no limit)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--interval", interval_s, "seconds between passes with --serve")->check(CLI::Range(1L, 3600L));
  app.add_option("--digest-quiet", digest_quiet_s, "a digest goes once its burst was quiet this long, seconds")
      ->check(CLI::Range(1L, 86400L));
  app.add_option("--infra-gather", infra_gather_s, "the admins' message of a cluster fault waits this long after its first job, seconds")
      ->check(CLI::Range(0L, 86400L));
  app.add_option("--infra-window", infra_window_s, "... and at most one such message per node and GPU this often, seconds")
      ->check(CLI::Range(0L, 30L * 86400));
  app.add_option("--digest-window", digest_window_s, "... or this long after its first message, seconds")
      ->check(CLI::Range(1L, 86400L));
  auto* one = app.add_option("--id", id, "send this message");
  auto* every = app.add_flag("--all", all, "send every pending message now, due or not");
  auto* pass = app.add_flag("--once", once, "one pass over every outbox: the messages that are due");
  auto* loop = app.add_flag("--serve", serve, "a pass every --interval seconds until SIGTERM");
  bool probe = false;
  auto* check = app.add_flag("--probe", probe, "check that the relay answers (EHLO, STARTTLS, AUTH); send nothing");
  check->excludes(one, every, pass, loop);
  one->excludes(every, pass, loop);
  every->excludes(pass, loop);
  pass->excludes(loop);
  CLI11_PARSE(app, argc, argv);
  if (id.empty() && !all && !once && !serve && !probe) {
    std::cerr << "gpualert-send: give --id ID, --all, --once, --serve or --probe\n";
    return 2;
  }
  if (!probe && outboxes.empty()) {
    std::cerr << "gpualert-send: --outbox is required\n";
    return 2;
  }
  if ((!id.empty() || all) && outboxes.size() != 1) {
    std::cerr << "gpualert-send: --id and --all take exactly one --outbox\n";
    return 2;
  }
  SmtpConfig cfg;
  cfg.url = url;
  cfg.tls = tls == "required" ? TlsMode::Required : tls == "off" ? TlsMode::Off : TlsMode::Auto;
  cfg.user = user;
  cfg.password_file = password_file;
  cfg.ca_file = ca_file;
  cfg.verify_peer = !no_verify;
  cfg.timeout = std::chrono::milliseconds(timeout_ms);
  cfg.admin_to = admins;
  cfg.channels_file = channels_file;
  if (probe) {
    const RelayProbe p = probe_relay(cfg);
    nlohmann::json j = {{"ok", p.ok},         {"code", p.code}, {"error", p.error},
                        {"greeting", p.greeting}, {"capabilities", p.capabilities},
                        {"tls", p.tls},       {"auth", p.auth}};
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return p.ok ? 0 : 1;
  }
  FlushOptions opt;
  opt.only_id = id;
  opt.admin_to = admins;
  opt.admin_from = admin_from;
  opt.policy.base = std::chrono::seconds(retry_base_s);
  opt.policy.max = std::chrono::seconds(retry_max_s);
  opt.policy.expire_after = std::chrono::seconds(expire_s);
  RateLimiter limiter(rate_global, rate_rcpt);
  opt.limiter = &limiter;
  try {
    if (!id.empty() || all) {
      Outbox box(outboxes.front());
      const FlushReport r = flush_outbox(box, cfg, opt);
      if (!id.empty()) {
        if (r.sent == 1) {
          std::cout << "ok\n";
          return 0;
        }
        if (r.busy == 1) std::cout << "error 0 being sent by another process\n";
        else if (r.limited == 1) std::cout << "error 0 over the send rate: left for the sender\n";
        else if (r.failed == 1)
          std::cout << "error " << (r.last_failure.http ? "http:" : "") << r.last_failure.smtp_code << " "
                    << r.last_failure.error << "\n";
        else std::cout << "error 0 no pending message " << id << "\n";
        return 1;
      }
      print_summary(r);
      return r.failed == 0 ? 0 : 1;
    }
    // The sender: passes over every spool, only what is due; the digests first.
    opt.due_only = true;
    opt.sender = true;
    opt.digests.quiet = std::chrono::seconds(digest_quiet_s);
    opt.digests.window = std::chrono::seconds(digest_window_s);
    opt.infra.gather = std::chrono::seconds(infra_gather_s);
    opt.infra.window = std::chrono::seconds(infra_window_s);
    ::signal(SIGTERM, on_stop);
    ::signal(SIGINT, on_stop);
    int failed = 0;
    do {
      for (const auto& dir : outboxes) {
        try {
          Outbox box(dir);
          const FlushReport r = flush_outbox(box, cfg, opt);
          failed += r.failed;
          if (once) {
            std::cout << "outbox " << dir << "\n";
            print_summary(r);
          }
        } catch (const std::exception& e) {
          std::cerr << "gpualert-send: " << dir << ": " << e.what() << "\n";
          ++failed;
        }
      }
      for (long s = 0; serve && !g_stop && s < interval_s * 10; ++s)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (serve && !g_stop);
    return once && failed > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cout << "error 0 " << e.what() << "\n";
    return 1;
  }
}
