#pragma once
// Delivery through the separate `gpualert-send` program. Only that program
// links libcurl (and its thirty libraries), so the wrapper a job runs under
// starts in about a millisecond, and a crash in TLS code can never touch it.
#include <filesystem>

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

// $GPUALERT_SEND, else gpualert-send next to the running executable, else the
// installed libexec copy.
std::filesystem::path send_program();

// Sends one stored message; bounded by cfg.timeout plus a few seconds for the
// program itself (then it is killed). The outbox records the outcome. Never throws.
SendResult send_stored(const SmtpConfig& cfg, const Outbox& box, const StoredMessage& m);

// `flush_outbox` in the helper: every pending message, with the same bounds per message.
FlushReport flush_stored(const SmtpConfig& cfg, const Outbox& box);

// gpualert-send and how it reaches the relay (URL, timeout, TLS, AUTH user and
// password file, CA): what every use of it shares (never the password itself).
std::vector<std::string> relay_arguments(const SmtpConfig& cfg);
// The same, plus the outbox, the admins to tell and the retry schedule.
std::vector<std::string> send_arguments(const SmtpConfig& cfg, const Outbox& box);
std::vector<std::string> send_arguments(const SmtpConfig& cfg, const std::filesystem::path& outbox_dir);

}  // namespace gpualert::notify
