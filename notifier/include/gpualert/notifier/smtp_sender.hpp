#pragma once
// Delivery of a stored message to an SMTP relay with libcurl, bounded in time.
#include <chrono>
#include <filesystem>
#include <string>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify {

enum class TlsMode { Auto, Required, Off };  // Auto: STARTTLS when offered (smtps:// is always TLS)

struct SmtpConfig {
  std::string url;  // smtp://host[:port] or smtps://host[:port]; empty means "no relay"
  TlsMode tls = TlsMode::Auto;
  std::string user;                      // AUTH user; empty = no AUTH
  std::filesystem::path password_file;   // must be a regular file not readable by group/others
  std::filesystem::path ca_file;         // optional CA bundle for the relay's certificate
  bool verify_peer = true;
  std::chrono::milliseconds timeout{15000};  // whole transaction, connect included
};

struct SendResult {
  bool ok = false;
  long smtp_code = 0;  // last reply code when known
  std::string error;   // readable reason when !ok
};

// Never throws; never takes longer than cfg.timeout (plus a few ms).
SendResult send_message(const SmtpConfig& cfg, const StoredMessage& m);

struct FlushReport {
  int sent = 0;
  int failed = 0;
  std::vector<std::string> errors;  // "<id>: <reason>"
};

// Tries every pending message once; sent ones move to sent/.
FlushReport flush_outbox(Outbox& outbox, const SmtpConfig& cfg);

}  // namespace gpualert::notify
