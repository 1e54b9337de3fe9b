#pragma once
// One pass over an outbox: every message that is due is tried once; the relay's
// answer decides whether it is sent, retried later (backoff) or given up
// (failed/, the admins told); every outcome goes to the delivery log.
#include <string>
#include <vector>

#include "gpualert/notifier/digest.hpp"
#include "gpualert/notifier/infra_digest.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/rate_limiter.hpp"
#include "gpualert/notifier/retry_policy.hpp"
#include "gpualert/notifier/smtp_sender.hpp"

namespace gpualert::notify {

struct FlushOptions {
  std::string only_id;          // just that message
  bool due_only = false;        // leave the ones whose next attempt is later
  RetryPolicy policy;
  RateLimiter* limiter = nullptr;
  std::vector<std::string> admin_to;  // told of every message given up (none: only logged)
  std::string admin_from;
  // The sender's passes: marked (so jobs know a sender runs and may fold into digests),
  // and the digests that are due assembled first.
  bool sender = false;
  DigestPolicy digests;
  InfraPolicy infra;  // the admins' messages of cluster faults (infra_digest.hpp)
};

// Each message is locked (flock on its .eml) while it is tried, so concurrent
// passes (two senders on one shared spool) never send it twice. Never throws.
FlushReport flush_outbox(Outbox& outbox, const SmtpConfig& cfg, const FlushOptions& opt);

}  // namespace gpualert::notify
