#pragma once
// The helper's use of the job-start record the plugin's job_prolog left for this
// node (gpualert/spool/job_start_record.hpp): the job's own GPUs, the kernel logs'
// positions at the start, and the GPU faults seen before it.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/report/run_evidence.hpp"
#include "gpualert/spool/job_start_record.hpp"
#include "gpualert/spool/spool_dir.hpp"

namespace gpualert::epilog {

// This node's record, if it is there and is this job's (same job id and user).
// NOTE says why not (missing: the prolog was off or the plugin came later).
std::optional<spool::JobStartRecord> read_job_start(const spool::DirFd& dir, const std::string& node, std::uint32_t job,
                                                    uid_t uid, std::string& note);

// The kernel-log positions and the faults before, for report::add_kernel_events.
report::KernelStart kernel_start(const spool::JobStartRecord& r);

// The job's GPUs into STATUS.gpus when the record knows them exactly ({"none"}: no GPU).
// False: the record does not know (the caller may still try the environment).
bool apply_job_gpus(classify::RunStatus& status, const spool::JobStartRecord& r);

// When the job started on this node, by the record.
std::chrono::system_clock::time_point start_time(const spool::JobStartRecord& r);

}  // namespace gpualert::epilog
