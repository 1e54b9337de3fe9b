#pragma once
// The return of a reinforcement-learning run ("ep_rew_mean | 0.016", "episode_reward=0.00",
// "AverageEpRet 12.3"): its loss terms (value, policy, entropy) say nothing of learning,
// the return does. One metric, the first named; bounded memory.
#include <cstdint>
#include <string>
#include <string_view>

namespace gpualert::classify::detail {

class ReturnTracker {
 public:
  void feed(std::string_view line_text, std::uint64_t line);

  std::uint64_t count() const { return count_; }
  const std::string& key() const { return key_; }
  // Every value printed the same, to every digit printed: the policy's return never moved.
  bool never_moved() const { return count_ >= kUnmovedRecords && same_; }
  const std::string& first_value() const { return first_; }
  const std::string& last_value() const { return last_; }
  // Records enough to read a learning curve from.
  bool is_curve() const { return count_ >= kUnmovedRecords; }
  std::uint64_t first_line() const { return first_line_; }
  std::uint64_t last_line() const { return last_line_; }

  // Records enough that an unchanged return is no chance: ten evaluations or logging rounds.
  static constexpr std::uint64_t kUnmovedRecords = 10;

 private:
  std::string key_, first_, last_;
  bool same_ = true;
  std::uint64_t count_ = 0, first_line_ = 0, last_line_ = 0;
};

}  // namespace gpualert::classify::detail
