#pragma once
// "Why did I get no mail?": every delivery attempt and outcome goes to the journal
// with structured fields (journalctl GPUALERT_JOB_ID=123 answers it), or, where
// there is no journal (or with GPUALERT_DELIVERY_LOG=stderr), as one line on stderr.
#include <string>

namespace gpualert::notify {

struct StoredMessage;

struct DeliveryEvent {
  std::string outcome;  // stored, sent, deferred, failed, expired, limited
  std::string relay;    // URL or transport
  std::string reply;    // the server's reply or the local reason
  long code = 0;        // SMTP reply code when known
};

void log_delivery(const StoredMessage& m, const DeliveryEvent& e);

}  // namespace gpualert::notify
