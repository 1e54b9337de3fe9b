#include "gpualert/report/notify_choice.hpp"

#include "gpualert/report/message_builder.hpp"

namespace gpualert::report {

NotifyChoice notify_choice(const classify::Verdict& v, const RunFacts& f, const config::Settings& s) {
  const std::string word = status_word(v, f);  // OK, SUSPECT, FAILED, KILLED
  const bool failed = word == "FAILED" || word == "KILLED";
  const bool bad = failed || word == "SUSPECT";
  const bool infra = v.attribution == "infra";
  // The site's floor first: what always reaches the user.
  if ((s.notify_floor == "infra" && infra) || (s.notify_floor == "failures" && (failed || infra))) return {};
  const std::string& n = s.notify;
  if (n == "all" || (n == "bad" && bad) || (n == "failures" && failed)) return {};
  return {false, "not sent: notify = " + n + " and the run was " + word +
                     (n == "none" ? "" : " (" + v.cls + ")")};
}

}  // namespace gpualert::report
