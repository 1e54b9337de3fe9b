#include "gpualert/notifier/infra_digest.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "record_table.hpp"

namespace gpualert::notify {
namespace {

using detail::get;
using detail::pad;

std::string stamp(const std::string& iso) { return iso.size() >= 19 ? iso.substr(0, 10) + " " + iso.substr(11, 8) : iso; }

// A Slurm node name as scontrol takes it: what is not a name character is dropped.
std::string node_word(const std::string& s) {
  std::string out;
  for (const char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') out += c;
  return out.empty() ? "NODE" : out;
}

}  // namespace

std::string infra_key(const std::string& node, const std::string& gpu) {
  return std::string(kInfraKeyPrefix) + one_line(node, 100) + ":" + (gpu.empty() ? "-" : one_line(gpu, 40));
}

bool is_infra_key(const std::string& key) { return key.rfind(kInfraKeyPrefix, 0) == 0; }

std::optional<std::chrono::system_clock::time_point> infra_due(const Outbox& box, const std::string& key,
                                                               const InfraPolicy& p,
                                                               std::chrono::system_clock::time_point now) {
  std::optional<std::chrono::system_clock::time_point> oldest;
  for (const auto& m : box.pending())
    if (m.digest_key == key && (!oldest || m.created < *oldest)) oldest = m.created;
  if (!oldest) return std::nullopt;
  auto due = *oldest + p.gather;
  // The last message of this key (pending or sent): the next waits for its window.
  for (const auto& m : box.recent(now - p.window))
    if (get(m, "digest") == key) due = std::max(due, m.created + p.window);
  return due;
}

Message infra_message(const std::vector<StoredMessage>& rs, const std::string& key) {
  Message d;
  d.envelope = rs.front().envelope;
  const std::string node = one_line(get(rs.front(), "node"), 100), gpu = one_line(get(rs.front(), "gpu"), 40);
  std::map<std::string, int> per_class;
  std::set<std::string> users;
  for (const auto& m : rs) {
    ++per_class[get(m, "class")];
    users.insert(get(m, "user"));
  }
  std::string classes;  // "gpu_hardware", or "gpu_hardware 5, node_fail 3"
  for (const auto& [c, n] : per_class)
    classes += (classes.empty() ? "" : ", ") + c + (per_class.size() > 1 ? " " + std::to_string(n) : "");
  const std::string where = "node " + node + (gpu.empty() ? "" : ", GPU " + gpu);
  const std::string jobs = std::to_string(rs.size()) + (rs.size() == 1 ? " job" : " jobs");
  d.subject = "[gpualert] cluster fault on " + where + ": " + jobs + " ended (" + classes + ")";
  std::ostringstream o;
  o << "A fault of the cluster, not of the jobs, ended " << jobs << " of " << users.size()
    << (users.size() == 1 ? " user" : " users") << " on " << where << ", between " << stamp(get(rs.front(), "ended"))
    << " and " << stamp(get(rs.back(), "ended")) << " UTC.\n\n";
  o << "What the kernel and the logs said (as the verdicts cite it)\n";
  std::set<std::string> seen;
  for (const auto& m : rs) {
    std::istringstream ev(get(m, "evidence"));
    for (std::string line; std::getline(ev, line);)
      if (!line.empty() && seen.insert(line).second && seen.size() <= 20) o << "  " << one_line(line, 400) << "\n";
  }
  if (seen.empty()) o << "  (no line was cited)\n";
  o << "\nJobs it ended\n  " << pad("job", 12) << pad("user", 14) << pad("class", 20) << pad("exit", 12)
    << "ended (UTC)\n";
  for (const auto& m : rs)
    o << "  " << pad(get(m, "job"), 12) << pad(get(m, "user"), 14) << pad(get(m, "class"), 20) << pad(get(m, "exit"), 12)
      << stamp(get(m, "ended")) << "\n";
  o << "\nWhy the jobs are not to blame\n";
  std::istringstream why(get(rs.front(), "cause"));
  for (std::string line; std::getline(why, line);) o << "  " << one_line(line, 400) << "\n";
  std::string reason = "gpualert: " + (gpu.empty() ? std::string() : "GPU " + gpu + ": ") + classes + ", " + jobs;
  reason.erase(std::remove_if(reason.begin(), reason.end(), [](char c) { return c == '"' || c == '\'' || c == '\\'; }),
               reason.end());
  o << "\ngpualert never drains a node. To take it out of service until it is looked at:\n"
    << "  scontrol update nodename=" << node_word(node) << " state=drain reason=\"" << one_line(reason, 200) << "\"\n";
  o << "\nEach job's own message went to its user. Further jobs this fault ends within the next window are "
       "held and listed in one follow-up, not sent one by one.\n";
  d.body_text = o.str();
  d.extra_headers = {{"X-Gpualert-Infra", key},
                     {"X-Gpualert-Attribution", "infra"},
                     {"X-Gpualert-Node", node},
                     {"X-Gpualert-Digest", std::to_string(rs.size())}};
  if (!gpu.empty()) d.extra_headers.emplace_back("X-Gpualert-Gpu", gpu);
  d.record = {{"digest", key}, {"node", node}, {"gpu", gpu}};
  return d;
}

std::vector<StoredMessage> assemble_infra(Outbox& box, const InfraPolicy& p, std::chrono::system_clock::time_point now,
                                          const std::string& only_key) {
  std::vector<StoredMessage> made;
  UniqueFd lock(::open((box.dir() / "infra.lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX) != 0) return made;
  std::map<std::string, std::vector<StoredMessage>> groups;
  for (auto& m : box.pending())
    if (is_infra_key(m.digest_key) && (only_key.empty() || m.digest_key == only_key))
      groups[m.digest_key].push_back(std::move(m));
  for (auto& [key, rs] : groups) {
    const auto due = infra_due(box, key, p, now);
    if (!due || *due > now) continue;
    // In the order the jobs ended (their helpers may have stored them in another).
    std::stable_sort(rs.begin(), rs.end(), [](const auto& a, const auto& b) {
      return std::make_pair(get(a, "ended"), a.created) < std::make_pair(get(b, "ended"), b.created);
    });
    const StoredMessage d = box.store(infra_message(rs, key));
    for (const auto& m : rs) box.mark_folded_into(m, d.id);
    made.push_back(d);
  }
  return made;
}

}  // namespace gpualert::notify
