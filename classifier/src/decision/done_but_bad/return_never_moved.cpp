// A reinforcement-learning run whose return printed the same value record after record:
// the policy never improved, whatever its loss terms did (they are not a learning curve).
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_return_never_moved(FinishedRun& r) {
  const ReturnTracker& R = r.progress.returns;
  if (!R.never_moved()) return false;
  r.d.v.shows.push_back("the " + R.key() + " was " + R.first_value() + " in all " + std::to_string(R.count()) +
                        " records (lines " + std::to_string(R.first_line()) + "-" + std::to_string(R.last_line()) + ")");
  return r.decide("divergence", 0.6,
                  "The return never moved: the policy did not improve (a reward that never varies, a learning rate or "
                  "entropy setting that stops exploration, an environment that ends episodes before any reward).");
}

}  // namespace gpualert::classify::detail
