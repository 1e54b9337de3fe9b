#pragma once
// Puts a tee in front of the task's stdout and stderr just before it execs:
// everything still goes where Slurm sent it (srun's terminal, --output/--error
// files), byte for byte, and also into the task's log in the spool.
namespace gpualert::spank {

// Called in task_init (as the job user, in the task process). LOG_FD and
// STREAMS_FD were opened by root in task_init_privileged; they are consumed.
// On any failure the task's stdio is left untouched. Returns false with errno.
bool start_task_tee(int log_fd, int streams_fd);

}  // namespace gpualert::spank
