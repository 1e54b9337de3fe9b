#include "gpualert/report/infra_alert.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <thread>

#include "gpualert/common/text.hpp"
#include "gpualert/config/defaults.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "gpualert/events/kernel_events.hpp"
#include "gpualert/notifier/infra_digest.hpp"
#include "gpualert/notifier/outbox.hpp"
#include "gpualert/notifier/send_process.hpp"
#include "gpualert/report/delivery.hpp"

namespace gpualert::report {
namespace {

bool names_network(const classify::Verdict& v) {
  static const char* const kWords[] = {"network", "NET/", "ibv_", "Connection refused", "No route to host",
                                       "unreachable", "Connection reset", "socket", "RDMA", "InfiniBand"};
  for (const auto& c : v.evidence)
    for (const char* w : kWords)
      if (c.text.find(w) != std::string::npos) return true;
  return false;
}

notify::InfraPolicy policy(const config::Settings& s) {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  return {duration_cast<seconds>(s.infra_gather), duration_cast<seconds>(s.infra_window)};
}

std::vector<std::string> recipients(const config::Settings& s) { return s.infra_to.empty() ? s.admin_to : s.infra_to; }

}  // namespace

bool is_cluster_fault(const classify::Verdict& v) {
  if (v.attribution != "infra") return false;
  if (v.cls == "gpu_hardware" || v.cls == "node_fail" || v.cls == "thermal_throttle" || v.cls == "straggler") return true;
  return v.cls == "rendezvous" && names_network(v);
}

std::string faulted_gpu(const classify::Verdict& v, const std::vector<std::string>& job_gpus) {
  std::string any;
  for (const auto& c : v.evidence) {
    const auto bus = events::normalize_bus_id(c.text, true);
    if (!bus) continue;
    if (std::find(job_gpus.begin(), job_gpus.end(), *bus) != job_gpus.end()) return *bus;
    if (any.empty()) any = *bus;
  }
  // Only a known neighbour's GPU is not the fault's: with the job's GPUs unknown, any named one is.
  return job_gpus.empty() || job_gpus.front() == "none" ? any : std::string();
}

InfraAlert hold_for_admins(const classify::Verdict& v, const InfraJob& j, const config::Settings& s) {
  InfraAlert a;
  const auto to = recipients(s);
  if (to.empty() || !is_cluster_fault(v)) return a;
  const std::string gpu = faulted_gpu(v, j.gpus);
  a.key = notify::infra_key(j.node, gpu);
  notify::Message m;
  m.envelope.from = s.from.empty() ? "gpualert@" + config::host_name() : s.from;
  m.envelope.to = to;
  m.subject = "[gpualert] cluster fault report: job " + j.job + " on " + j.node;
  std::string evidence;
  for (const auto& c : v.evidence)
    if (evidence.size() < 1500) evidence += one_line(c.line ? "line " + std::to_string(c.line) + ": " + c.text : c.text, 400) + "\n";
  std::string cause;
  for (const auto& line : v.implies) cause += one_line(line, 400) + "\n";
  m.body_text = "Held for the admins' message of " + a.key + ".\n\n" + evidence;
  m.extra_headers = {{"X-Gpualert-Job", j.job}, {"X-Gpualert-User", j.user}, {"X-Gpualert-Class", v.cls},
                     {"X-Gpualert-Notice", "cluster-fault"}};
  m.record = {{"job", j.job},     {"user", j.user},         {"class", v.cls}, {"attribution", v.attribution},
              {"node", j.node},   {"gpu", gpu},             {"exit", j.exit}, {"ended", j.ended},
              {"evidence", evidence}, {"cause", cause}};
  try {
    notify::Outbox box(s.outbox);
    // Decided under the key's lock: of helpers ending together, exactly one gathers.
    UniqueFd lock(::open((box.dir() / "infra.lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (lock.valid()) ::flock(lock.get(), LOCK_EX);
    bool others = false;
    for (const auto& p : box.pending())
      if (p.digest_key == a.key) others = true;
    box.store(m, a.key);
    a.held = true;
    // The first report of its key gathers, unless the key's last message is so recent
    // that the next one waits for its window (the sender sends that follow-up).
    const auto due = notify::infra_due(box, a.key, policy(s), std::chrono::system_clock::now());
    a.gatherer = !others && due && *due <= std::chrono::system_clock::now() + policy(s).gather + std::chrono::seconds(1);
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

std::string send_admins_message(const InfraAlert& a, const config::Settings& s) {
  if (!a.gatherer) return a.held ? "held for the admins' message of " + a.key : "not held: " + a.error;
  try {
    notify::Outbox box(s.outbox);
    const auto p = policy(s);
    const auto due = notify::infra_due(box, a.key, p, std::chrono::system_clock::now());
    if (!due) return "the admins' message of " + a.key + " was already sent by the sender";
    std::this_thread::sleep_until(std::min(*due, std::chrono::system_clock::now() + p.gather));
    const auto made = notify::assemble_infra(box, p, std::chrono::system_clock::now(), a.key);
    if (made.empty()) return "the admins' message of " + a.key + " was built elsewhere (the sender)";
    if (s.transport == "spool" || delivery_url(s).empty())
      return "the admins' message of " + a.key + " is queued: " + made.front().eml.string();
    const auto r = notify::send_stored(smtp_config(s), box, made.front());
    return r.ok ? "the admins' message of " + a.key + " was sent" : "the admins' message of " + a.key +
                                                                         " was not sent yet (" + r.error + "); kept in the outbox";
  } catch (const std::exception& e) {
    return std::string("the admins' message failed: ") + e.what();
  }
}

}  // namespace gpualert::report
