#pragma once
// Puts a tee in front of the task's stdout and stderr just before it execs:
// everything still goes where Slurm sent it (srun's terminal, --output/--error
// files), byte for byte, and also into the task's log in the spool.
#include <cstdint>

namespace gpualert::spank {

inline constexpr std::uint64_t kDefaultLogHeadBytes = 8u << 20;
inline constexpr std::uint64_t kDefaultLogTailBytes = 8u << 20;

// Called in task_init (as the job user, in the task process, whose parent is
// the step's slurmstepd). LOG_FD and STREAMS_FD were opened by root in
// task_init_privileged; they are consumed. The log keeps the first HEAD_BYTES
// and the last TAIL_BYTES of the output; fds 1 and 2 always get every byte.
// A terminal on fd 1 or 2 is left as it is (not captured, noted in the log);
// when 1 and 2 are one open file they go through one pipe, so order is kept.
// On any failure the task's stdio is left untouched. Returns false with errno.
// SPOOL_FLOOR: free space in the spool that the log leaves to other jobs once it
// has its first 256 KiB (see SpaceGuard); 0 = a quarter of the spool's file
// system, at most 64 MiB.
// LIVE_FD (-1: none): the task's live sample for the live watcher (see LiveSample).
bool start_task_tee(int log_fd, int streams_fd, int live_fd = -1, std::uint64_t head_bytes = kDefaultLogHeadBytes,
                    std::uint64_t tail_bytes = kDefaultLogTailBytes, std::uint64_t spool_floor = 0);

}  // namespace gpualert::spank
