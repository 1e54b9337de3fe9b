#include "gpualert/fleet/fleet_summary.hpp"

#include <algorithm>

namespace gpualert::fleet {

bool is_infra(const std::string& attribution) { return attribution == "infra"; }

void FleetAggregator::add(const JobRecord& j) {
  ++jobs_;
  const double hours = static_cast<double>(j.gpus) * static_cast<double>(std::max<std::int64_t>(j.elapsed, 0)) / 3600.0;
  gpu_hours_ += hours;
  if (!j.verdict) {
    auto& c = classes_[{"(no verdict)", ""}];
    ++c.jobs;
    c.gpu_hours += hours;
    ++unjudged_states_[j.state.empty() ? "?" : j.state];
    return;
  }
  ++with_verdict_;
  const AccountingVerdict& v = *j.verdict;
  auto& c = classes_[{v.cls, v.attribution}];
  ++c.jobs;
  c.gpu_hours += hours;
  if (is_infra(v.attribution)) {
    const std::string node = v.node.empty() ? j.nodes : v.node;
    // A GPU's own fault is counted on that GPU (the one the kernel record named); a
    // node's (node_fail, a straggler, the network) on the node.
    std::vector<std::string> gpus;
    if (v.cls == "gpu_hardware" || v.cls == "thermal_throttle") gpus = !v.bad.empty() ? v.bad : v.gpus;
    if (gpus.empty()) gpus.push_back("");
    for (const auto& g : gpus) {
      FaultRow& f = faults_[{node, g}];
      f.node = node;
      f.gpu = g;
      ++f.jobs;
      ++f.classes[v.cls];
      if (f.job_ids.size() < 8) f.job_ids.push_back(j.job_id);
      if (f.users.size() < 8 && std::find(f.users.begin(), f.users.end(), j.user) == f.users.end()) f.users.push_back(j.user);
    }
  } else if (v.attribution == "job") {
    ++user_classes_[j.user][v.cls];
  }
}

FleetSummary FleetAggregator::finish(const std::function<std::string(const std::string&)>& fix, std::size_t top) const {
  FleetSummary s;
  s.jobs = jobs_;
  s.with_verdict = with_verdict_;
  s.gpu_hours = gpu_hours_;
  for (const auto& [key, acc] : classes_) {
    ClassRow r{key.first, key.second, acc.jobs, acc.gpu_hours};
    if (key.first == "(no verdict)") {
      std::string states;
      for (const auto& [st, n] : unjudged_states_) states += (states.empty() ? "" : ", ") + st + " " + std::to_string(n);
      r.attribution = states;
    }
    s.classes.push_back(std::move(r));
  }
  std::stable_sort(s.classes.begin(), s.classes.end(), [](const ClassRow& a, const ClassRow& b) { return a.jobs > b.jobs; });
  for (const auto& [key, f] : faults_) s.faults.push_back(f);
  std::stable_sort(s.faults.begin(), s.faults.end(), [](const FaultRow& a, const FaultRow& b) { return a.jobs > b.jobs; });
  if (s.faults.size() > top) s.faults.resize(top);
  for (const auto& [user, per] : user_classes_) {
    UserRow u;
    u.user = user;
    for (const auto& [cls, n] : per) {
      u.job_failures += n;
      if (n > u.jobs) {
        u.jobs = n;
        u.cls = cls;
      }
    }
    s.users.push_back(std::move(u));
  }
  std::stable_sort(s.users.begin(), s.users.end(),
                   [](const UserRow& a, const UserRow& b) { return a.job_failures > b.job_failures; });
  if (s.users.size() > top) s.users.resize(top);
  for (auto& u : s.users) u.fix = fix(u.cls);
  return s;
}

}  // namespace gpualert::fleet
