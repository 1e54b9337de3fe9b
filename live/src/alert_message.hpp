#pragma once
// A live alert as a message: short, and saying what is still true.
#include "gpualert/live/conditions.hpp"
#include "gpualert/notifier/message.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::live {

notify::Message alert_message(const Alert& a, const report::RunFacts& f, const std::string& from,
                              const std::vector<std::string>& to, Clock::time_point now);

}  // namespace gpualert::live
