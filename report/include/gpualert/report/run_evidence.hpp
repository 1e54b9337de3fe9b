#pragma once
// Evidence about a run beyond its output: the node's kernel and GPU-driver
// events in the run's window, and how long the output had been silent at the end.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/events/gpu_inventory.hpp"
#include "gpualert/events/kernel_events.hpp"

namespace gpualert::report {

struct NodeKernelLog {
  bool read_any = false;
  std::vector<std::string> errors;
  std::vector<classify::KernelEvent> events;
};
// This node's kernel log for [FROM - slack, TO + slack], from the kernel itself only:
// the journal's kernel transport (when this build has sd-journal) and /dev/kmsg.
// Where a job-start record (the prolog) left the node's kernel logs. The job's window
// is then read from these positions on (the sequence number and cursor decide, not the
// stamps), and the GPU faults the record saw before the start stand for the hours
// before (a long job's ring buffer may have lost them by its end).
struct KernelStart {
  std::optional<std::uint64_t> kmsg_after_seq;
  std::string journal_after_cursor;
  std::vector<classify::KernelEvent> before;
  bool positioned() const { return kmsg_after_seq.has_value() || !journal_after_cursor.empty(); }
};

NodeKernelLog read_node_kernel_log(std::chrono::system_clock::time_point from, std::chrono::system_clock::time_point to,
                                   const KernelStart* start = nullptr);

// The same into STATUS.events, saying what could not be read in PROBLEMS only when
// nothing at all could be.
// With STATUS.gpus known, the hours before FROM are read too: a fault of the run's
// own GPU there means the node was already sick (kBaseline).
// With START (a job-start record), from its positions and its faults before instead.
void add_kernel_events(classify::RunStatus& status, std::chrono::system_clock::time_point from,
                       std::chrono::system_clock::time_point to, std::vector<std::string>& problems,
                       const KernelStart* start = nullptr);
inline constexpr std::chrono::hours kBaseline{6};

// The run's GPUs into STATUS.gpus, from a list Slurm or CUDA gave it (see
// events::select_gpus) mapped on this node's GPUs (GPUALERT_NVIDIA_GPUS_DIR, else
// /proc/driver/nvidia/gpus). When they cannot be told, STATUS.gpus stays empty (every
// GPU record counts) and PROBLEMS says why; a run with no GPU gets {"none"}.
void add_job_gpus(classify::RunStatus& status, std::string_view list, events::IndexMeaning meaning,
                  std::vector<std::string>& problems);
// The list this process's environment gives: SLURM_JOB_GPUS (device minors), else
// CUDA_VISIBLE_DEVICES (CUDA's numbering); nullopt when neither is set (every GPU).
std::optional<std::pair<std::string, events::IndexMeaning>> gpus_from_environment();

// From output.streams ("<tag> <offset> <length> <ms since start>"): seconds
// between the last output and DURATION (the end of the run). nullopt without output.
std::optional<double> silence_before_end(const std::filesystem::path& streams, std::chrono::milliseconds duration);

}  // namespace gpualert::report
