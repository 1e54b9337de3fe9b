#pragma once
// A live alert as a message: short, and saying what is still true.
#include <utility>

#include "gpualert/live/conditions.hpp"
#include "gpualert/notifier/message.hpp"

namespace gpualert::live {

struct AlertContext {
  std::string label;  // "train.py", "job 123 (train)"
  std::string host, user, from;
  std::vector<std::string> to;
  Clock::time_point started, now;
  std::string log_hint;                 // where the log so far is ("" = not said)
  std::vector<std::string> more_facts;  // e.g. "scancel 123 frees its GPUs"
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::pair<std::string, std::string>> record;  // outbox record fields (job, array)
};

notify::Message alert_message(const Alert& a, const AlertContext& c);

// The same alert for each chat or webhook channel in CHANNELS (MAIL: the alert's mail,
// whose headers and record the posts share).
std::vector<notify::Message> alert_posts(const Alert& a, const AlertContext& c, const std::vector<std::string>& channels,
                                         const notify::Message& mail);

}  // namespace gpualert::live
