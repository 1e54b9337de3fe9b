#pragma once
// The verdict as a post for each chat or webhook channel a run names: Slack and Mattermost
// (incoming-webhook JSON with a coloured attachment), Microsoft Teams (an Adaptive Card
// for a workflow webhook) and a generic JSON document for any other system. Each fits
// its channel's limits; the log stays on the cluster (a webhook cannot carry files), its
// path is given.
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/notifier/message.hpp"
#include "gpualert/report/run_facts.hpp"

namespace gpualert::report {

// One Message per channel ("slack:team-ml"...), with the mail's headers and record (the
// outbox files it by job, user and class) and the channel's payload.
std::vector<notify::Message> build_posts(const classify::Verdict& v, const RunFacts& f,
                                         const std::vector<std::string>& channels, const notify::Message& mail);

// The payloads themselves (tests check their shape and limits).
std::string slack_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail);
std::string teams_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail);
std::string json_payload(const classify::Verdict& v, const RunFacts& f, const notify::Message& mail);

// A short notice that is not a verdict (a live alert while the job runs), as a post per
// channel: its title, a few lines of what is still true, the job, whose move it is.
struct Notice {
  std::string title;  // the mail's subject
  std::string kind;   // "live:stall"
  std::string headline;
  std::vector<std::string> lines;
  std::string attribution = "job";  // whose move (the taxonomy's words): the colour
};
std::vector<notify::Message> build_notice_posts(const Notice& n, const std::vector<std::string>& channels,
                                                const notify::Message& mail);

// Slack's incoming webhooks take at most 40,000 characters of text; messages past about
// 4,000 are cut by clients, and Teams refuses cards over 28 KB.
constexpr std::size_t kPostTextMax = 3500;

}  // namespace gpualert::report
