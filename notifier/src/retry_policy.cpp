#include "gpualert/notifier/retry_policy.hpp"

#include <algorithm>

namespace gpualert::notify {

bool permanent_failure(const SendResult& r) {
  if (r.http)  // the request was refused as such; a timeout (408) or a rate limit (429) passes
    return !r.ok && r.smtp_code >= 400 && r.smtp_code <= 499 && r.smtp_code != 408 && r.smtp_code != 429;
  return !r.ok && !r.relay_unusable && r.smtp_code >= 500 && r.smtp_code <= 599;
}

std::chrono::system_clock::time_point next_attempt(const RetryPolicy& p, int attempts,
                                                  std::chrono::system_clock::time_point now, std::uint64_t seed) {
  using std::chrono::seconds;
  const int doublings = std::clamp(attempts - 1, 0, 30);
  const long long base = std::max<long long>(1, p.base.count());
  const long long wait = std::min<long long>(std::max<long long>(1, p.max.count()), base << std::min(doublings, 20));
  // splitmix64 of the seed and the attempt: a fixed jitter per message and attempt.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(attempts + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double jitter = 0.8 + 0.4 * static_cast<double>(z % 10001) / 10000.0;  // 0.8 .. 1.2
  const auto ms = static_cast<long long>(static_cast<double>(wait) * 1000.0 * jitter);
  return now + std::chrono::milliseconds(ms);
}

}  // namespace gpualert::notify
