#pragma once
// Sends per minute, for the whole sender and per recipient, so that a burst of
// failures (an array, a node going bad) never gets the site's relay to ban us.
// What is over the limit simply waits for a later pass; nothing is dropped.
#include <chrono>
#include <deque>
#include <map>
#include <string>

namespace gpualert::notify {

class RateLimiter {
 public:
  // 0 = no limit.
  RateLimiter(int global_per_minute = 0, int per_recipient_per_minute = 0)
      : global_(global_per_minute), per_rcpt_(per_recipient_per_minute) {}
  // True (and counted) when one more message to RECIPIENT may go at NOW.
  bool take(const std::string& recipient, std::chrono::steady_clock::time_point now);

 private:
  static void expire(std::deque<std::chrono::steady_clock::time_point>& q, std::chrono::steady_clock::time_point now);
  int global_, per_rcpt_;
  std::deque<std::chrono::steady_clock::time_point> all_;
  std::map<std::string, std::deque<std::chrono::steady_clock::time_point>> by_rcpt_;
};

}  // namespace gpualert::notify
