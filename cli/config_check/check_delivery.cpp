#include <unistd.h>

#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "gpualert/common/run_program.hpp"
#include "gpualert/config/addresses.hpp"
#include "gpualert/config/destinations.hpp"
#include "gpualert/notifier/channel_book.hpp"
#include "gpualert/notifier/send_process.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::cli::check {

std::string redact_url(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto host_end = url.find_first_of("/?#", scheme + 3);
  const auto at = url.rfind('@', host_end);
  if (at == std::string::npos || at < scheme) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

namespace {

void check_addresses(Report& r, const config::Settings& s, const char* area) {
  std::string why;
  std::vector<std::string> list;
  if (!s.from.empty() && !config::parse_address_list(s.from, list, why)) r.fail(area, "from: " + why);
  for (const auto& a : s.admin_to)
    if (list.clear(); !config::parse_address_list(a, list, why)) r.fail(area, "admin_to: " + why);
  if (s.admin_to.empty())
    r.warn(area, "admin_to is not set: nobody is told when a message is refused for good or expires");
}

void probe(Report& r, const config::Settings& s, const char* area) {
  const notify::SmtpConfig cfg = report::smtp_config(s);
  std::vector<std::string> probe_args = notify::relay_arguments(cfg);  // no outbox: nothing is sent
  probe_args.push_back("--probe");
  const std::string shown = redact_url(s.smtp_url);
  const auto out = run_program(probe_args, cfg.timeout + std::chrono::seconds(5), 64 * 1024);
  if (!out) {
    r.fail(area, "cannot run " + probe_args[0] + " to reach the relay (missing, or it did not finish in time)");
    return;
  }
  nlohmann::json j = nlohmann::json::parse(out->out.substr(0, out->out.find('\n')), nullptr, false);
  if (!j.is_object()) {
    r.fail(area, "relay " + shown + ": no answer from " + probe_args[0] + ": " + out->err.substr(0, 300));
    return;
  }
  if (!j.value("ok", false)) {
    r.fail(area, "relay " + shown + " does not work: " + j.value("error", std::string("unknown error")));
    return;
  }
  std::string caps;
  for (const auto& c : j.value("capabilities", std::vector<std::string>{})) caps += (caps.empty() ? "" : ", ") + c;
  r.ok(area, "relay " + shown + " answered (" + j.value("greeting", std::string()) + ")" +
                 (caps.empty() ? "" : "; offers " + caps) + (j.value("tls", false) ? "; encrypted" : "") +
                 (j.value("auth", false) ? "; AUTH accepted" : "") + "; nothing was sent");
  if (!j.value("tls", false) && !s.smtp_user.empty())
    r.fail(area, "AUTH over an unencrypted connection: set smtp_tls = required or use smtps://");
  else if (!j.value("tls", false))
    r.info(area, "the relay connection is not encrypted (fine for a relay on this host or a trusted network)");
}

// The channels file, and every channel `to` names defined in it (never showing a URL).
void check_channels(Report& r, const config::Settings& s, const char* area) {
  const auto named = config::channels(s.to);
  std::error_code ec;
  const std::string file = s.channels_file.string();
  if (named.empty() && !std::filesystem::exists(s.channels_file, ec)) return;
  std::string why;
  const auto book = notify::read_channel_book(s.channels_file, why);
  if (!book) {
    if (named.empty()) r.info(area, "channels file not usable by this user: " + why, file);
    else r.fail(area, "channels file: " + why, file);
    return;
  }
  for (const auto& p : book->problems) r.fail(area, "channels file " + p, file);
  for (const auto& c : named)
    if (!book->urls.count(c)) r.fail(area, "to names " + c + ", which the channels file does not define", file);
  std::string names;
  for (const auto& [name, url] : book->urls) names += (names.empty() ? "" : ", ") + name;
  r.ok(area, std::to_string(book->urls.size()) + " channel(s) defined" + (names.empty() ? "" : ": " + names) +
                 " (their URLs are not shown; nothing was posted)", file);
}

}  // namespace

void check_delivery(Report& r, const config::Settings& s, bool probe_relay, const char* area) {
  check_addresses(r, s, area);
  check_channels(r, s, area);
  if (s.transport == "sendmail") {
    if (::access(s.sendmail_path.c_str(), X_OK) == 0)
      r.ok(area, "transport sendmail: " + s.sendmail_path.string() + " is there (the node's MTA queues and retries)");
    else
      r.fail(area, "transport sendmail: " + s.sendmail_path.string() + " is missing or not executable");
    return;
  }
  if (s.transport == "spool") {
    r.ok(area, "transport spool: messages wait in " + s.outbox.string() + " for a sender on another host");
    return;
  }
  if (s.smtp_url.empty()) {
    r.warn(area, "no relay (smtp_url): messages are stored in the outbox and never sent from here");
    return;
  }
  if (!s.smtp_user.empty()) {
    std::error_code ec;
    if (s.smtp_password_file.empty() || !std::filesystem::exists(s.smtp_password_file, ec))
      r.fail(area, "smtp_user is set but smtp_password_file is missing", s.smtp_password_file.string());
  }
  if (probe_relay) probe(r, s, area);
  else r.info(area, "relay " + redact_url(s.smtp_url) + " not contacted (--no-relay)");
}

void check_outbox(Report& r, const config::Settings& s) {
  std::error_code ec;
  std::filesystem::path p = s.outbox;
  while (!p.empty() && !std::filesystem::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
  if (p.empty() || ::access(p.c_str(), W_OK | X_OK) != 0) {
    r.fail("outbox", "not writable by this user (nearest existing directory: " + p.string() + ")", s.outbox.string());
    return;
  }
  r.ok("outbox", p == s.outbox ? "writable" : "will be made on first use", s.outbox.string());
  for (const auto& spool : s.spools) {
    if (::access(spool.c_str(), R_OK | W_OK | X_OK) == 0) r.ok("outbox", "sender spool readable and writable", spool.string());
    else r.fail("outbox", "sender spool missing or not writable", spool.string());
  }
}

}  // namespace gpualert::cli::check
