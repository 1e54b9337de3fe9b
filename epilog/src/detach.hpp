#pragma once
// Leaving the job's footprint: the helper outlives the job, so it must not sit
// in the job's cgroups (Slurm could not remove them, and would kill it there).
namespace gpualert::epilog {

// Moves this process to the root cgroup of every mounted hierarchy it can write
// (cgroup v1 controllers and the v2 unified tree). Best effort; returns how many moved.
int leave_job_cgroups();

}  // namespace gpualert::epilog
