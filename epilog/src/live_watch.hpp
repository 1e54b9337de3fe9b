#pragma once
// gpualert-epilog --live: the live watcher of one job on its first node, started
// detached by the plugin's job_prolog. The watching (the task samples, /proc) runs
// in a child that has become the job's user; each alert it sees comes back over a
// pipe as one JSON line and is delivered from here through the outbox, as root,
// like the final message. It ends when the job's epilog leaves the end marker.
#include <cstdint>
#include <string>
#include <sys/types.h>

#include "gpualert/config/recipient_policy.hpp"

namespace gpualert::epilog {

struct LiveWatchArgs {
  std::string spool_path, conf, to, allow_to;
  config::RecipientPolicy rule;
  std::uint32_t job = 0;
  uid_t uid = 0;
  std::string node;
};

// The file the job's epilog leaves on NODE to end that node's watcher.
std::string live_end_marker(const std::string& node);

// Returns 0 whatever happens (a detached helper has no one to tell); notes go to
// live-NODE.log in the job's spool directory.
int run_live_watch(const LiveWatchArgs& a);

}  // namespace gpualert::epilog
