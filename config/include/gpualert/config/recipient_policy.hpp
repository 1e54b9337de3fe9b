#pragma once
// The site's rule for whom a job's message may go to (plugstack arguments
// allow_to= and max_to=). The message carries the job's log and is sent by
// root, so --gpualert=root or a list of 60 strangers is refused at submit time.
#include <optional>
#include <string>
#include <vector>

namespace gpualert::config {

struct RecipientPolicy {
  std::vector<std::string> allow;  // fnmatch patterns ("*@example.org"); empty: any address with a domain
  unsigned max = 5;                // at most this many recipients per job
};

// "*@a.org,*@b.org" -> the patterns (empty entries dropped), as written in plugstack.conf.
std::vector<std::string> split_patterns(const std::string& list);

// Why TO breaks POLICY for a job of OWN_USER (a bare local name is allowed only
// when it is the job's own user, and then only if no pattern excludes it);
// nullopt when every recipient is allowed.
std::optional<std::string> refuse_recipients(const std::vector<std::string>& to, const RecipientPolicy& policy,
                                             const std::string& own_user);

}  // namespace gpualert::config
