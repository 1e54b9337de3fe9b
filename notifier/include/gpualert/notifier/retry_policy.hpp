#pragma once
// When a message that could not be delivered is tried again, and when it is given up:
// a relay's permanent refusal stops at once, anything else is retried with an
// exponential backoff and jitter (so many nodes never retry in step) until the
// message is older than the expiry age.
#include <chrono>
#include <cstdint>

#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

struct RetryPolicy {
  std::chrono::seconds base{60};        // wait after the first failure
  std::chrono::seconds max{3600};       // longest wait between two attempts
  std::chrono::seconds expire_after{std::chrono::hours(72)};  // then: failed/, admin told
};

// A 5xx reply to MAIL, RCPT or DATA: this message will never be taken by this relay.
// Connection, timeout, DNS, TLS and AUTH failures and 4xx replies are temporary.
bool permanent_failure(const SendResult& r);

// The time of the next attempt after ATTEMPTS failed ones (1 = the first failure):
// base * 2^(attempts-1), at most max, then +-20 % from SEED (e.g. the message id's hash).
std::chrono::system_clock::time_point next_attempt(const RetryPolicy& p, int attempts,
                                                  std::chrono::system_clock::time_point now, std::uint64_t seed);

}  // namespace gpualert::notify
