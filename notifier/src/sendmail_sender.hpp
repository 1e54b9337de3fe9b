#pragma once
#include <chrono>
#include <string>

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

// Hands stored message M to PROGRAM (e.g. /usr/sbin/sendmail) on its stdin, with the
// envelope as arguments. ok: the MTA took it. A refusal of this message is reported
// with smtp_code 554 (permanent); anything else is relay_unusable (temporary).
SendResult send_with_sendmail(const std::string& program, const StoredMessage& m, std::chrono::milliseconds timeout);

}  // namespace gpualert::notify
