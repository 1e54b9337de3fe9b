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
NodeKernelLog read_node_kernel_log(std::chrono::system_clock::time_point from, std::chrono::system_clock::time_point to);

// The same into STATUS.events, saying what could not be read in PROBLEMS only when
// nothing at all could be.
// With STATUS.gpus known, the hours before FROM are read too: a fault of the run's
// own GPU there means the node was already sick (kBaseline).
void add_kernel_events(classify::RunStatus& status, std::chrono::system_clock::time_point from,
                       std::chrono::system_clock::time_point to, std::vector<std::string>& problems);
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
