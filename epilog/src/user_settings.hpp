#pragma once
// The job user's own choices for their Slurm jobs: their ~/.config/gpualert/gpualert.conf,
// read by a child that has become the user (root never opens a path a user chose), and
// applied on top of the site's settings: only notify, to, html, digest_window, live and
// stall_after (never shorter than the site's).
#include <string>
#include <vector>

#include "as_job_user.hpp"
#include "gpualert/config/recipient_policy.hpp"
#include "gpualert/config/settings.hpp"

namespace gpualert::epilog {

// JOB_NAMED: the job named its recipients (--gpualert=..., --mail-user); the file's TO then
// gives way. The file's TO is held to the site's RULE like any recipient a user names.
// Returns what the helper's log should say (nothing when there is no file).
std::vector<std::string> apply_user_file(config::Settings& settings, const JobUser& user, const std::string& user_name,
                                         bool job_named, const config::RecipientPolicy& rule);

}  // namespace gpualert::epilog
