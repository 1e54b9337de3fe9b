#pragma once
// A channel's post: the stored JSON payload to the channel's URL over HTTP(S), bounded in
// time like a mail. The URL is read from the channels file at send time, never stored.
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

// 2xx: sent. 4xx (but 408 and 429): refused for good. Anything else: tried again later.
// Never throws.
SendResult post_to_channel(const SmtpConfig& cfg, const StoredMessage& m);

}  // namespace gpualert::notify
