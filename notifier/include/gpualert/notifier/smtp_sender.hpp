#pragma once
// Delivery of a stored message to an SMTP relay with libcurl, bounded in time.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify {

enum class TlsMode { Auto, Required, Off };  // Auto: STARTTLS when offered (smtps:// is always TLS)

struct SmtpConfig {
  // smtp://host[:port] or smtps://host[:port]; "sendmail:PROGRAM" hands messages to the
  // node's MTA instead; empty means "no relay"
  std::string url;
  TlsMode tls = TlsMode::Auto;
  std::string user;                      // AUTH user; empty = no AUTH
  std::filesystem::path password_file;   // must be a regular file not readable by group/others
  std::filesystem::path ca_file;         // optional CA bundle for the relay's certificate
  bool verify_peer = true;
  std::chrono::milliseconds timeout{15000};  // whole transaction, connect included
  // Told (one notice each) when a message is given up: refused for good, or expired.
  std::vector<std::string> admin_to;
  // The retry schedule a failed message is given (see RetryPolicy).
  std::chrono::seconds retry_base{60}, retry_max{3600}, expire_after{std::chrono::hours(72)};
  // Where a channel's post finds its URL (channel_book.hpp).
  std::filesystem::path channels_file;
};

struct SendResult {
  bool ok = false;
  long smtp_code = 0;  // last reply code when known
  std::string error;   // readable reason when !ok
  // The failure is not about this message (cannot connect, timeout, TLS, AUTH,
  // local configuration): other messages would fail the same way right now.
  bool relay_unusable = false;
  // A channel's post: smtp_code holds the HTTP status (4xx but 408/429: refused for good).
  bool http = false;
};

// Never throws; never takes longer than cfg.timeout (plus a few ms): besides
// curl's timeouts, a watchdog shuts the connection down at the deadline.
SendResult send_message(const SmtpConfig& cfg, const StoredMessage& m);

struct FlushReport {
  int sent = 0;
  int failed = 0;
  std::vector<std::string> errors;  // "<id>: <reason>"
  int busy = 0;      // being sent by another process right now (left alone)
  int deferred = 0;  // not tried: the relay was unusable for an earlier message
  int not_due = 0;   // not tried: its next attempt is later (FlushOptions::due_only)
  int limited = 0;   // not tried: over the send rate, left for a later pass
  int gave_up = 0;   // moved to failed/: refused for good, or expired
  int folded = 0;    // not tried: held for a digest
  SendResult last_failure;  // the most recent failed attempt, with its reply code
};

// Tries every pending message once, oldest first; sent ones move to sent/,
// failed ones get attempts+1 and last_error. After a relay-level failure
// (SendResult::relay_unusable) the rest are deferred, not tried, so a dead
// relay costs one timeout, not one per message. Each message is locked
// (flock on its .eml) while it is sent, so concurrent flushes never send it twice.
// Never throws.
FlushReport flush_outbox(Outbox& outbox, const SmtpConfig& cfg, const std::string& only_id = "");
// ONLY_ID: just that message (it must still be pending).

}  // namespace gpualert::notify
