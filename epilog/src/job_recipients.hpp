#pragma once
// Who a Slurm job's messages go to, the same for its live alerts and its verdict: the
// recipients the job named (--gpualert=, its steps' own), else its --mail-user (held to
// the site's rule like any address a user names), else the user on this host.
#include <functional>
#include <string>
#include <vector>

#include "gpualert/config/recipient_policy.hpp"

namespace gpualert::epilog {

struct JobRecipients {
  std::vector<std::string> to;  // empty only when nothing is known (no user name)
  bool named = false;           // the job named them (a user's own file's "to" then gives way)
};

// NOTE is told why a --mail-user was not used.
JobRecipients job_recipients(std::vector<std::string> named, const std::vector<std::string>& mail_user,
                             const config::RecipientPolicy& rule, const std::string& user,
                             const std::function<void(const std::string&)>& note);

}  // namespace gpualert::epilog
