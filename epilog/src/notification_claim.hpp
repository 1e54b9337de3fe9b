#pragma once
// Exactly one message per job run: the helper that creates `notified.<restart>`
// in the job's directory reports, every other one (the epilog run twice, another
// component of a heterogeneous job) stands down.
#include <chrono>
#include <string>

#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::epilog {

// True when this helper won the claim. The marker holds the run's start time:
// one left by another job under a reused id (another start) is replaced (said
// in REPLACED) and does not silence this one.
bool claim_notification(const spool::DirFd& dir, int restart_count, const std::string& run_start,
                        std::string& replaced);

// A heterogeneous job's component waits up to WAIT for its leader's helper to
// claim the message in LEADER_DIR (a shared spool shows it); true once it has.
bool leader_reports(const spool::DirFd& leader_dir, int restart_count, std::chrono::seconds wait);

}  // namespace gpualert::epilog
