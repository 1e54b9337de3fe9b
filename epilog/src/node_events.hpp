#pragma once
// Kernel events of every node of a job. Only the first node's helper reports, but an
// Xid or an OOM kill can happen on any node: each other node's helper reads its own
// kernel log for its part of the job and leaves it in the (shared) spool, and the
// reporting helper waits briefly for those files and merges them. With a node-local
// spool the files never arrive, and the verdict says which nodes were not read.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/spool/job_start_record.hpp"
#include "gpualert/spool/spool_dir.hpp"
#include "gpualert/spool/step_record.hpp"

namespace gpualert::epilog {

using Clock = std::chrono::system_clock;

struct NodeEvents {
  std::string node;
  bool read_any = false;  // at least one kernel-log source of that node was read
  std::vector<std::string> errors;
  std::vector<classify::KernelEvent> events;
};

// "kernel-events.<node>.r<restart>.json"
std::string node_events_name(const std::string& node, int restart);

// This node's window: the earliest start and latest end of its step records of the
// newest run (nullopt-like zero time points when the records have no times).
std::pair<Clock::time_point, Clock::time_point> node_window(const std::vector<spool::StepRecord>& records,
                                                            const std::string& node);

std::string to_json_text(const NodeEvents& e);
// Throws on a malformed file.
NodeEvents node_events_from_json_text(const std::string& text);

// Reads this node's kernel log for [FROM, TO] and writes it for the reporting node. With
// this node's job-start record (START), the window is read from its positions, its GPU
// faults from before the start are added (marked so), and each record naming a GPU says
// whether that GPU is the job's here: GPU addresses repeat from node to node, so only
// this node can tell.
bool publish_node_events(const spool::DirFd& dir, gid_t gid, const std::string& node, int restart, Clock::time_point from,
                         Clock::time_point to, const spool::JobStartRecord* start, std::string& note);

// The files of NODES other than SELF, waiting up to WAIT for the missing ones.
// MISSING gets the nodes whose file never came.
std::vector<NodeEvents> gather_node_events(const spool::DirFd& dir, const std::vector<std::string>& nodes,
                                           const std::string& self, int restart, std::chrono::milliseconds wait,
                                           std::vector<std::string>& missing, std::vector<std::string>& problems);

}  // namespace gpualert::epilog
