#include "gpualert/notifier/rate_limiter.hpp"

namespace gpualert::notify {

void RateLimiter::expire(std::deque<std::chrono::steady_clock::time_point>& q,
                         std::chrono::steady_clock::time_point now) {
  while (!q.empty() && now - q.front() >= std::chrono::minutes(1)) q.pop_front();
}

bool RateLimiter::take(const std::string& recipient, std::chrono::steady_clock::time_point now) {
  expire(all_, now);
  auto& mine = by_rcpt_[recipient];
  expire(mine, now);
  if (global_ > 0 && static_cast<int>(all_.size()) >= global_) return false;
  if (per_rcpt_ > 0 && static_cast<int>(mine.size()) >= per_rcpt_) return false;
  all_.push_back(now);
  mine.push_back(now);
  // Recipients with nothing recent are forgotten, so the map stays small.
  for (auto it = by_rcpt_.begin(); it != by_rcpt_.end();) {
    expire(it->second, now);
    it = it->second.empty() ? by_rcpt_.erase(it) : std::next(it);
  }
  return true;
}

}  // namespace gpualert::notify
