#include "job_recipients.hpp"

#include "gpualert/config/defaults.hpp"

namespace gpualert::epilog {

JobRecipients job_recipients(std::vector<std::string> named, const std::vector<std::string>& mail_user,
                             const config::RecipientPolicy& rule, const std::string& user,
                             const std::function<void(const std::string&)>& note) {
  JobRecipients r{std::move(named), false};
  if (r.to.empty() && !mail_user.empty()) {
    // --mail-user is the user's word too: held to the same rule as --gpualert=.
    if (const auto refused = config::refuse_recipients(mail_user, rule, user))
      note("--mail-user not used: " + *refused);
    else
      r.to = mail_user;
  }
  r.named = !r.to.empty();
  if (r.to.empty() && !user.empty()) r.to = {user + "@" + config::host_name()};
  return r;
}

}  // namespace gpualert::epilog
