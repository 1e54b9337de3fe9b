#pragma once
// Whether a run's verdict is sent at all: the user's choice (notify), raised by the
// site's floor (notify_floor). The verdict is kept either way (verdict.json, the spool,
// Slurm's accounting); only the message is left out.
#include <string>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/config/settings.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::report {

struct NotifyChoice {
  bool send = true;
  std::string why;  // when not sent: "notify = failures, and the run was OK"
};

NotifyChoice notify_choice(const classify::Verdict& v, const RunFacts& f, const config::Settings& s);

}  // namespace gpualert::report
