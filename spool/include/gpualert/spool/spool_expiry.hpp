#pragma once
// Retention for the node's spool: job directories (and those moved to stale/)
// are removed once nothing in them has changed for KEEP, so a node's spool
// does not grow for ever. Run by the epilog helper after it has notified.
#include <chrono>
#include <cstddef>

#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::spool {

// Removes at most MAX_REMOVED old directories (bounded work per job end);
// returns how many went.
std::size_t expire_job_dirs(const DirFd& spool, std::chrono::seconds keep, std::size_t max_removed = 200);

}  // namespace gpualert::spool
