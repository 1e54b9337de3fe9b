#pragma once
// The checks of `gpualert config check`, one file each. They read what the jobs
// read and touch nothing: no directory is made, no message sent.
#include <filesystem>
#include <optional>

#include "check_report.hpp"
#include "gpualert/config/loader.hpp"

namespace gpualert::cli::check {

struct Options {
  std::optional<std::filesystem::path> config_file;  // instead of the user's file
  std::optional<std::filesystem::path> plugstack;    // default: /etc/slurm/plugstack.conf when present
  bool probe_relay = true;                           // --no-relay: skip talking to the relay
};

// The layers a job reads: the system file and its rules.d, the user's file (when
// run by a user, or --config), the environment. Reports each problem with file:line.
config::Loader check_settings(Report& r, const Options& o);
// The built-in rules with the site's and user's rule files compile (RE2 and the fast matcher).
void check_rules(Report& r, const config::Settings& s, const char* area = "rules");
// The chosen transport can work: the relay answers (EHLO, STARTTLS, AUTH; nothing
// sent), the sendmail program is there, the spools are writable; addresses are valid.
void check_delivery(Report& r, const config::Settings& s, bool probe_relay, const char* area = "delivery");
// The outbox exists (or can be made) and this user can write it.
void check_outbox(Report& r, const config::Settings& s);
// The plugstack lines that load gpualert.so: arguments, plugin and helper files,
// the spool (root's, not writable by others), the site file the helper reads.
void check_plugstack(Report& r, const Options& o);
// The Slurm release the plugin was built for is the one installed.
void check_slurm_release(Report& r);

// smtp://user:secret@host -> smtp://user:***@host (a secret is never printed).
std::string redact_url(const std::string& url);

}  // namespace gpualert::cli::check
