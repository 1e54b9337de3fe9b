#include "gpualert/report/delivery.hpp"

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/send_process.hpp"

namespace gpualert::report {

notify::SmtpConfig smtp_config(const config::Settings& s) {
  notify::SmtpConfig c;
  c.url = s.smtp_url;
  c.tls = s.smtp_tls == "required" ? notify::TlsMode::Required
          : s.smtp_tls == "off"    ? notify::TlsMode::Off
                                   : notify::TlsMode::Auto;
  c.user = s.smtp_user;
  c.password_file = s.smtp_password_file;
  c.ca_file = s.smtp_ca_file;
  c.verify_peer = s.smtp_verify_peer;
  c.timeout = s.send_timeout;
  return c;
}

Delivery deliver(const notify::Message& msg, const config::Settings& s,
                 const std::function<std::optional<notify::Message>()>& fuller) {
  Delivery d;
  try {
    notify::Outbox box(s.outbox);
    box.keep_reserve(s.outbox_reserve);
    notify::StoredMessage stored = box.store(msg);
    box.keep_reserve(s.outbox_reserve);  // restored after use, when there is room again
    d.stored = true;
    d.eml = stored.eml;
    if (fuller) {
      try {
        if (const auto more = fuller()) box.replace(stored, *more);
      } catch (const std::exception&) {
        // The quick message is stored and complete: it is the one sent.
      }
    }
    if (s.smtp_url.empty()) return d;
    d.attempted = true;
    const notify::SendResult r = notify::send_stored(smtp_config(s), box, stored);
    // gpualert-send has already moved the message to sent/ or recorded the failure.
    if (r.ok) {
      d.sent = true;
      d.eml = s.outbox / "sent" / stored.eml.filename();
    } else {
      d.error = r.error;
    }
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

std::string Delivery::describe(const config::Settings& s) const {
  if (!stored) return "NOT stored: " + error + " (the log and verdict are still in the run directory)";
  if (!attempted) return "no relay configured; the message is in the local outbox: " + eml.string();
  if (sent) return "sent to " + [&] {
    std::string t;
    for (const auto& a : s.to) t += (t.empty() ? "" : ", ") + a;
    return t;
  }() + " via " + s.smtp_url;
  return "NOT sent (" + error + "); kept in the outbox: " + eml.string() +
         "; retry with `gpualert outbox flush`";
}

}  // namespace gpualert::report
