// The accuracy ends pinned at chance (1/K) evaluation after evaluation: the model
// predicts one class whatever it is shown, whatever the loss does meanwhile.
#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_accuracy_at_chance(FinishedRun& r) {
  const auto c = r.progress.accuracy.at_chance();
  if (!c) return false;
  Decision& d = r.d;
  d.v.shows.push_back("the " + c->metric + " was " + fmt(c->value) + " = 1/" + std::to_string(c->classes) + " at each of the last " +
                      std::to_string(c->evaluations) + " values (lines " + std::to_string(c->from_line) + "-" +
                      std::to_string(c->to_line) + ")" +
                      (c->best >= 0 ? "; the log printed an accuracy of " + fmt(c->best) + " before" : ""));
  return r.decide("divergence", c->best >= 0 ? 0.7 : 0.55,
                  "An accuracy of exactly 1/" + std::to_string(c->classes) +
                      ", again and again, is a model that predicts the same class for every input: training " +
                      (c->best >= 0 ? "collapsed after it had learned." : "is not learning."));
}

}  // namespace gpualert::classify::detail
