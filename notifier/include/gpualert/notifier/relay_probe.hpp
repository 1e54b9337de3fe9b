#pragma once
// Checks that the relay answers, the way a send would reach it (greeting, EHLO,
// STARTTLS and AUTH when configured), and sends no message: NOOP, then QUIT.
// Used by `gpualert config check` through gpualert-send --probe.
#include <string>
#include <vector>

#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

struct RelayProbe {
  bool ok = false;
  long code = 0;                          // the last reply code
  std::string error;                      // readable reason when !ok
  std::string greeting;                   // the relay's 220 line
  std::vector<std::string> capabilities;  // what its EHLO reply offered (SIZE, STARTTLS, AUTH ...)
  bool tls = false;                       // the session was encrypted (smtps:// or STARTTLS)
  bool auth = false;                      // AUTH was tried and accepted
};

// Never throws; bounded by cfg.timeout like a send. No secret ends up in the result.
RelayProbe probe_relay(const SmtpConfig& cfg);

}  // namespace gpualert::notify
