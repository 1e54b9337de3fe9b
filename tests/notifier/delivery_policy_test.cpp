// The retry schedule, the refusal rule and the send rates.
#include <gtest/gtest.h>

#include "gpualert/notifier/rate_limiter.hpp"
#include "gpualert/notifier/retry_policy.hpp"

using namespace gpualert::notify;
using std::chrono::seconds;

TEST(RetryPolicy, OnlyAFiveHundredReplyToThisMessageIsPermanent) {
  SendResult r;
  r.smtp_code = 550;
  EXPECT_TRUE(permanent_failure(r));
  r.smtp_code = 451;
  EXPECT_FALSE(permanent_failure(r));
  r.smtp_code = 535;  // AUTH: the relay or our configuration, for every message
  r.relay_unusable = true;
  EXPECT_FALSE(permanent_failure(r));
  SendResult timeout;
  timeout.relay_unusable = true;
  EXPECT_FALSE(permanent_failure(timeout));
  SendResult ok;
  ok.ok = true;
  ok.smtp_code = 550;
  EXPECT_FALSE(permanent_failure(ok));
}

TEST(RetryPolicy, WaitsDoubleUpToTheMaximumWithinTwentyPercent) {
  RetryPolicy p;
  p.base = seconds(60);
  p.max = seconds(3600);
  const auto now = std::chrono::system_clock::now();
  const double expect[] = {60, 120, 240, 480, 960, 1920, 3600, 3600, 3600};
  for (int a = 1; a <= 9; ++a) {
    for (std::uint64_t seed : {1ull, 42ull, 0xdeadbeefull}) {
      const double wait = std::chrono::duration<double>(next_attempt(p, a, now, seed) - now).count();
      EXPECT_GE(wait, expect[a - 1] * 0.8 - 0.01) << a;
      EXPECT_LE(wait, expect[a - 1] * 1.2 + 0.01) << a;
    }
  }
  // Jitter: messages failing together do not come back together.
  EXPECT_NE(next_attempt(p, 3, now, 1), next_attempt(p, 3, now, 2));
  // A huge attempt count neither overflows nor exceeds the maximum.
  EXPECT_LE(next_attempt(p, 1000000, now, 7) - now, std::chrono::milliseconds(3600 * 1200));
}

TEST(RateLimiter, HoldsEachRecipientAndTheWholeToTheirRatePerMinute) {
  using std::chrono::steady_clock;
  RateLimiter per_rcpt(0, 2);
  const auto t = steady_clock::now();
  EXPECT_TRUE(per_rcpt.take("a", t));
  EXPECT_TRUE(per_rcpt.take("a", t));
  EXPECT_FALSE(per_rcpt.take("a", t));
  EXPECT_TRUE(per_rcpt.take("b", t));  // another recipient has its own budget
  EXPECT_TRUE(per_rcpt.take("a", t + std::chrono::seconds(61)));  // a minute later
  RateLimiter global(3, 0);
  EXPECT_TRUE(global.take("a", t));
  EXPECT_TRUE(global.take("b", t));
  EXPECT_TRUE(global.take("c", t));
  EXPECT_FALSE(global.take("d", t));
  RateLimiter none;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(none.take("a", t));
}
