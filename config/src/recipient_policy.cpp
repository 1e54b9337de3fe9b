#include "gpualert/config/recipient_policy.hpp"

#include <fnmatch.h>

#include "gpualert/config/destinations.hpp"

#include <algorithm>
#include <cctype>

namespace gpualert::config {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool allowed(const std::string& addr, const RecipientPolicy& policy, const std::string& own_user) {
  // A channel ("slack:team-ml") is the site's own, defined in its channels file; allow_to's
  // patterns ("slack:*") restrict channels as they restrict addresses.
  const bool bare = addr.find('@') == std::string::npos && !is_channel(addr);
  if (bare && addr != own_user) return false;  // root, or another user's local mailbox
  if (policy.allow.empty()) return true;
  const std::string a = lower(addr);
  return std::any_of(policy.allow.begin(), policy.allow.end(),
                     [&](const std::string& p) { return ::fnmatch(lower(p).c_str(), a.c_str(), 0) == 0; });
}

}  // namespace

std::vector<std::string> split_patterns(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t from = 0; from < list.size();) {
    const auto comma = std::min(list.find(',', from), list.size());
    if (comma > from) out.push_back(list.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

std::optional<std::string> refuse_recipients(const std::vector<std::string>& to, const RecipientPolicy& policy,
                                             const std::string& own_user) {
  if (to.size() > policy.max)
    return "--gpualert: " + std::to_string(to.size()) + " recipients; this site allows at most " +
           std::to_string(policy.max);
  for (const auto& a : to)
    if (!allowed(a, policy, own_user)) {
      std::string rule = a.find('@') == std::string::npos ? "a local name other than your own user"
                                                          : "an address outside this site's allowed patterns (";
      if (a.find('@') != std::string::npos) {
        for (std::size_t i = 0; i < policy.allow.size(); ++i) rule += (i ? ", " : "") + policy.allow[i];
        rule += ")";
      }
      return "--gpualert: '" + a + "' is " + rule + "; the message was refused";
    }
  return std::nullopt;
}

}  // namespace gpualert::config
