// gpualert-send: delivers messages from a gpualert outbox to an SMTP relay.
// The only program of gpualert that loads libcurl. It answers on stdout:
//   --id ID : "ok" or "error <smtp code> <reason>"
//   --all   : "summary <sent> <failed> <deferred> <busy>" then "failed <id>: <reason>" lines
#include <CLI/CLI.hpp>

#include <iostream>

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

using namespace gpualert::notify;

int main(int argc, char** argv) {
  CLI::App app{"gpualert-send: deliver messages waiting in a gpualert outbox"};
  std::string outbox, url, tls = "auto", user, password_file, ca_file, id;
  long timeout_ms = 15000;
  bool all = false, no_verify = false;
  app.add_option("--outbox", outbox, "outbox directory")->required();
  app.add_option("--smtp", url, "relay URL (smtp:// or smtps://)")->required();
  app.add_option("--tls", tls, "auto | required | off")->check(CLI::IsMember({"auto", "required", "off"}));
  app.add_option("--user", user, "AUTH user");
  app.add_option("--password-file", password_file, "file holding the AUTH password");
  app.add_option("--ca-file", ca_file, "CA bundle for the relay");
  app.add_flag("--no-verify-peer", no_verify, "do not verify the relay's certificate");
  app.add_option("--timeout-ms", timeout_ms, "bound for one SMTP transaction");
  auto* one = app.add_option("--id", id, "send this message");
  auto* every = app.add_flag("--all", all, "send every pending message");
  one->excludes(every);
  CLI11_PARSE(app, argc, argv);
  if (id.empty() && !all) {
    std::cerr << "gpualert-send: give --id ID or --all\n";
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
  try {
    Outbox box(outbox);
    const FlushReport r = flush_outbox(box, cfg, id);
    if (!id.empty()) {
      if (r.sent == 1) {
        std::cout << "ok\n";
        return 0;
      }
      if (r.busy == 1) std::cout << "error 0 being sent by another process\n";
      else if (r.failed == 1) std::cout << "error " << r.last_failure.smtp_code << " " << r.last_failure.error << "\n";
      else std::cout << "error 0 no pending message " << id << "\n";
      return 1;
    }
    std::cout << "summary " << r.sent << " " << r.failed << " " << r.deferred << " " << r.busy << "\n";
    for (const auto& e : r.errors) std::cout << "failed " << e << "\n";
    return r.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "error 0 " << e.what() << "\n";
    return 1;
  }
}
