#pragma once
// The operator's week in numbers: what ended jobs, on which nodes and GPUs the
// cluster was at fault, which users keep meeting the same failure of their own, and
// where the GPU-hours went. Fed one job at a time; memory grows with the number of
// distinct classes, nodes, GPUs and users, not with the jobs.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpualert/fleet/sacct_json.hpp"

namespace gpualert::fleet {

struct ClassRow {
  std::string cls;          // a taxonomy id, or "(no verdict)"
  std::string attribution;  // job | infra | ...; for "(no verdict)" the Slurm states seen
  std::uint64_t jobs = 0;
  double gpu_hours = 0;
};

struct FaultRow {  // one GPU (or a node, when the GPU is not known) and the infra verdicts on it
  std::string node, gpu;
  std::uint64_t jobs = 0;
  std::map<std::string, std::uint64_t> classes;
  std::vector<std::uint64_t> job_ids;  // the first few
  std::vector<std::string> users;      // distinct, the first few
};

struct UserRow {  // a user's most frequent failure of their own
  std::string user, cls;
  std::uint64_t jobs = 0;        // of that class
  std::uint64_t job_failures = 0;  // of every class attributed to the job
  std::string fix;
};

struct FleetSummary {
  std::uint64_t jobs = 0, with_verdict = 0;
  double gpu_hours = 0;
  std::vector<ClassRow> classes;  // most jobs first
  std::vector<FaultRow> faults;   // most infra verdicts first
  std::vector<UserRow> users;     // most job-side failures first
};

class FleetAggregator {
 public:
  void add(const JobRecord& j);
  // FIX gives the usual remedy of a class; TOP bounds the fault and user tables.
  FleetSummary finish(const std::function<std::string(const std::string&)>& fix, std::size_t top) const;

 private:
  struct ClassAcc {
    std::uint64_t jobs = 0;
    double gpu_hours = 0;
  };
  std::uint64_t jobs_ = 0, with_verdict_ = 0;
  double gpu_hours_ = 0;
  std::map<std::pair<std::string, std::string>, ClassAcc> classes_;
  std::map<std::string, std::uint64_t> unjudged_states_;
  std::map<std::pair<std::string, std::string>, FaultRow> faults_;
  std::map<std::string, std::map<std::string, std::uint64_t>> user_classes_;
};

// Infra classes whose verdicts go to the fault table.
bool is_infra(const std::string& attribution);

}  // namespace gpualert::fleet
