#include "return_tracker.hpp"

#include <cctype>

#include "re2/re2.h"

namespace gpualert::classify::detail {
namespace {

// Stable-Baselines3 / RLlib / Spinning Up / CleanRL names of the mean episode return, then
// the value after a table bar, colon, equals sign or spaces.
const RE2& return_re() {
  static const RE2 re(
      R"((?:^|[^\w])((?:rollout/|eval/|evaluation/|charts/)?(?:ep_rew_mean|ep_reward_mean|episode_reward_mean|episode_reward|mean_reward|avg_reward|average_reward|reward_mean|episodic_return|episode_return|mean_return|avg_return|average_return|return_mean|AverageEpRet|EpRet))['"]?\s*(?:\|\s*|[:=]\s*|\s+)([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)(?:[^\w.]|$))");
  return re;
}

}  // namespace

void ReturnTracker::feed(std::string_view text, std::uint64_t line) {
  std::string name, value;
  if (!RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), return_re(), &name, &value)) return;
  if (key_.empty()) key_ = name;
  if (name != key_) return;
  if (count_ == 0) {
    first_ = value;
    first_line_ = line;
  } else if (value != first_) {
    same_ = false;
  }
  ++count_;
  last_ = value;
  last_line_ = line;
}

}  // namespace gpualert::classify::detail
