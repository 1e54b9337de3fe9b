#pragma once
// Arguments from the plugstack.conf line, e.g.
//   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so default=off spool=/var/spool/gpualert
#include <cstdint>
#include <string>
#include <vector>

#include "gpualert/config/recipient_policy.hpp"

namespace gpualert::spank {

struct PluginArgs {
  bool default_on = false;                      // default=on: every job is watched unless --gpualert=off
  std::string spool = "/var/spool/gpualert";    // node-local by default; see README for shared spools
  std::string conf = "/etc/gpualert/gpualert.conf";
  std::string helper = "/usr/libexec/gpualert/gpualert-epilog";
  config::RecipientPolicy recipients;                   // allow_to=PATTERN[,PATTERN...] max_to=N
  std::uint64_t log_head = 8ULL << 20;          // log_head=BYTES, log_tail=BYTES: what one task's log keeps
  std::uint64_t log_tail = 8ULL << 20;
  std::uint64_t log_job = 64ULL << 20;          // log_job=BYTES: all of one job's logs on one node
  std::uint64_t spool_floor = 0;                // spool_floor=BYTES: free space a log leaves to others (0: auto)
  std::vector<std::string> errors;              // unknown keys, bad values: logged, never fatal
};

PluginArgs parse_plugin_args(int argc, char** argv);

}  // namespace gpualert::spank
