#pragma once
// A verdict that blames the cluster also goes to the admins (infra_to): the job's
// report is held in the outbox under its node and GPU (notifier/infra_digest.hpp),
// and the helper that held the first report of that key sends the admins one message
// once the gathering time is over, listing every job the fault ended meanwhile.
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "gpualert/config/settings.hpp"

namespace gpualert::report {

// Whether V is a fault of the cluster the admins should hear of: gpu_hardware,
// node_fail, thermal_throttle, straggler, and rendezvous when its evidence names the network.
bool is_cluster_fault(const classify::Verdict& v);

// The GPU the verdict's evidence names (normalised bus id), preferring one of JOB_GPUS;
// empty when no cited line names one.
std::string faulted_gpu(const classify::Verdict& v, const std::vector<std::string>& job_gpus);

struct InfraJob {
  std::string node, job, user, exit, ended;  // ended: ISO-8601 UTC
  std::vector<std::string> gpus;             // the job's GPUs (bus ids), when known
};

struct InfraAlert {
  bool held = false;      // the report is in the outbox
  bool gatherer = false;  // this helper sends the admins' message of its key
  std::string key, error;
};

// Holds the job's report for the admins (nothing when infra_to is empty).
InfraAlert hold_for_admins(const classify::Verdict& v, const InfraJob& j, const config::Settings& s);

// For the gatherer: waits until the key's message is due (at most the gathering time),
// builds it from every report held under the key and sends it. Returns what happened.
std::string send_admins_message(const InfraAlert& a, const config::Settings& s);

}  // namespace gpualert::report
