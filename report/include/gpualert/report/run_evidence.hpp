#pragma once
// Evidence about a run beyond its output: the node's kernel and GPU-driver
// events in the run's window, and how long the output had been silent at the end.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
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
void add_kernel_events(classify::RunStatus& status, std::chrono::system_clock::time_point from,
                       std::chrono::system_clock::time_point to, std::vector<std::string>& problems);

// From output.streams ("<tag> <offset> <length> <ms since start>"): seconds
// between the last output and DURATION (the end of the run). nullopt without output.
std::optional<double> silence_before_end(const std::filesystem::path& streams, std::chrono::milliseconds duration);

}  // namespace gpualert::report
