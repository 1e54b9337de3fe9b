#pragma once
// The plugin's arguments, from its plugstack.conf line, e.g.
//   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so default=off spool=/var/spool/gpualert
// Parsed here, not in spank/, so that `gpualert config check` reads them exactly as
// the plugin does.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/config/recipient_policy.hpp"

namespace gpualert::config {

struct PluginArgs {
  bool off = false;                             // off: loaded (so --gpualert is still accepted) but does nothing
  bool default_on = false;                      // default=on: every job is watched unless --gpualert=off
  std::string spool = "/var/spool/gpualert";    // node-local by default; see README for shared spools
  std::string conf = "/etc/gpualert/gpualert.conf";
  std::string helper = "/usr/libexec/gpualert/gpualert-epilog";
  RecipientPolicy recipients;                   // allow_to=PATTERN[,PATTERN...] max_to=N
  std::uint64_t log_head = 8ULL << 20;          // log_head=BYTES, log_tail=BYTES: what one task's log keeps
  std::uint64_t log_tail = 8ULL << 20;
  std::uint64_t log_job = 64ULL << 20;          // log_job=BYTES: all of one job's logs on one node
  std::uint64_t spool_floor = 0;                // spool_floor=BYTES: free space a log leaves to others (0: auto)
  std::vector<std::string> partitions;          // partitions=A,B: default=on applies to these partitions only
  bool prolog = true;                           // prolog=off: no job-start record (GPUs, kernel-log positions)
  std::string gpus_dir = "/proc/driver/nvidia/gpus";  // gpus_dir=PATH: where the driver lists GPUs (tests point it elsewhere)
  std::vector<std::string> errors;              // unknown keys, bad values: logged, never fatal
};

PluginArgs parse_plugin_args(int argc, char** argv);
PluginArgs parse_plugin_args(const std::vector<std::string>& args);

// Whether a job that did not say --gpualert is watched: default=on, and, when
// partitions= is given, only in those partitions (a rollout partition by partition).
bool on_by_default(const PluginArgs& a, const std::string& partition);

// One plugstack line that loads gpualert.so, as Slurm reads it.
struct PlugstackEntry {
  std::filesystem::path file;
  int line = 0;
  bool required = false;  // "required" fails jobs when the plugin fails to load; "optional" does not
  std::string plugin;     // the .so path as written
  PluginArgs args;
};

struct PlugstackScan {
  std::vector<PlugstackEntry> entries;     // every line naming gpualert.so, includes followed
  std::vector<std::string> files_read;     // plugstack.conf and what it includes
  std::vector<std::string> problems;       // "FILE:LINE: what" (unreadable include, bad line)
};

// Reads a plugstack.conf (following `include` globs, relative to its directory, as
// Slurm does) and returns the lines that load gpualert.so.
PlugstackScan scan_plugstack(const std::filesystem::path& file);

}  // namespace gpualert::config
