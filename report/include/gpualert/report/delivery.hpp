#pragma once
// Store first, then send: the outbox holds the complete message before any
// relay is contacted, so a refused, reset or silent relay loses nothing.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/config/settings.hpp"
#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::report {

struct Delivery {
  bool stored = false;
  std::filesystem::path eml;  // where the complete message is
  bool attempted = false;     // a relay was configured and tried
  bool sent = false;
  bool refused = false;       // refused for good by the relay: now in the outbox's failed/
  bool folded = false;        // held for a digest (sent by the sender)
  std::string fallback_reason;  // set when the message went to the private fallback outbox, and why
  std::string id;             // the message's id in the outbox
  std::string error;
  bool no_mail = false;            // only channels were named: no mail was made
  std::vector<std::string> posts;  // one line per channel: "slack:team-ml: posted", ...
  // One line for the terminal: where the message is and what happened to it.
  std::string describe(const config::Settings& s) const;
  std::string describe_mail(const config::Settings& s) const;
};

notify::SmtpConfig smtp_config(const config::Settings& s);
// Where messages go: the relay URL, or "sendmail:PROGRAM"; "" when there is none.
std::string delivery_url(const config::Settings& s);

// Never throws. FULLER, when given, is asked once MSG is safely stored: the
// message with what was left out to store it quickly (attachments); what it
// returns replaces the stored message atomically before sending, and nullopt
// (or a failure) keeps the quick one.
// POSTS (channel_posts.hpp) are stored in the same outbox after the mail, and posted
// (no relay is needed for them); a mail with no recipient is not made at all.
Delivery deliver(const notify::Message& msg, const config::Settings& s,
                 const std::function<std::optional<notify::Message>()>& fuller = {},
                 const std::vector<notify::Message>& posts = {});

}  // namespace gpualert::report
