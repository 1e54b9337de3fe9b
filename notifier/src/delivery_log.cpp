#include "gpualert/notifier/delivery_log.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

#include "gpualert/notifier/outbox.hpp"

#ifdef GPUALERT_HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

namespace gpualert::notify {
namespace {

// One line for stderr: no CR/LF from a server reply may split it.
std::string flat(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string recipients(const StoredMessage& m) {
  std::string t;
  for (const auto& a : m.envelope.to) t += (t.empty() ? "" : ",") + a;
  return t;
}

}  // namespace

void log_delivery(const StoredMessage& m, const DeliveryEvent& e) {
  const std::string text = "gpualert delivery: " + e.outcome + " message " + m.id + " (job " +
                           (m.job.empty() ? "-" : m.job) + ", user " + (m.user.empty() ? "-" : m.user) + ", to " +
                           recipients(m) + ") via " + (e.relay.empty() ? "-" : e.relay) +
                           (e.reply.empty() ? "" : ": " + flat(e.reply));
#ifdef GPUALERT_HAVE_SYSTEMD
  // GPUALERT_DELIVERY_LOG=stderr: the line on stderr even where there is a journal.
  const char* where = std::getenv("GPUALERT_DELIVERY_LOG");
  const int r = where && std::string(where) == "stderr" ? -1 : sd_journal_send(
      "MESSAGE=%s", text.c_str(), "PRIORITY=%d", e.outcome == "sent" || e.outcome == "stored" ? 6 : 4,
      "SYSLOG_IDENTIFIER=gpualert", "GPUALERT_DELIVERY=%s", e.outcome.c_str(), "GPUALERT_MESSAGE_ID=%s", m.id.c_str(),
      "GPUALERT_JOB_ID=%s", m.job.c_str(), "GPUALERT_USER=%s", m.user.c_str(), "GPUALERT_CLASS=%s", m.cls.c_str(),
      "GPUALERT_RELAY=%s", e.relay.c_str(), "GPUALERT_REPLY=%s", flat(e.reply).c_str(), "GPUALERT_SMTP_CODE=%ld",
      e.code, "GPUALERT_RECIPIENTS=%s", recipients(m).c_str(), "GPUALERT_ATTEMPTS=%d", m.attempts, nullptr);
  if (r >= 0) return;
#endif
  std::cerr << text << "\n";
}

}  // namespace gpualert::notify
