#pragma once
// A user's own choices for their Slurm jobs, from their ~/.config/gpualert/gpualert.conf
// (read as that user by the helper). Only a few keys are the user's to set there; the
// relay, the spool, the channels' file and everything else stay the site's.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::config {

struct UserChoices {
  std::optional<std::string> notify;                // none | failures | bad | all
  std::optional<std::vector<std::string>> to;       // addresses and channels
  std::optional<bool> html;
  std::optional<std::chrono::milliseconds> digest_window;
  std::optional<bool> live;                          // live alerts while the job runs
  std::optional<std::chrono::milliseconds> stall_after;
  std::optional<std::chrono::milliseconds> cancel_after_stall;  // honoured only where the site allows it
  std::vector<std::string> notes;  // "line 3: smtp_url is the site's to set; ignored", bad values
};

// The keys a user file may set for Slurm jobs.
const std::vector<std::string>& user_keys();

UserChoices read_user_choices(std::string_view text);

}  // namespace gpualert::config
