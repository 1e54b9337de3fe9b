#include "gpualert/notifier/digest.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <sstream>

#include "gpualert/common/fnv1a.hpp"
#include "gpualert/common/text.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "record_table.hpp"
#include "gpualert/notifier/infra_digest.hpp"

namespace gpualert::notify {
namespace {

using detail::get;
using detail::pad;

bool is_failure(const StoredMessage& m) {
  const std::string s = get(m, "status");
  return !m.notice && get(m, "digest").empty() && !s.empty() && s != "OK" && s != "LIVE";  // a live alert goes at once
}

// How a reader knows the job: its array task (65_19), its Slurm id, or the command.
std::string name_of(const StoredMessage& m) {
  if (!get(m, "task").empty()) return get(m, "task");
  if (!get(m, "job").empty()) return "job " + get(m, "job");
  return get(m, "label");
}

std::string first_recipient(const StoredMessage& m) { return m.envelope.to.empty() ? "" : m.envelope.to.front(); }

// The case a reader should see first: a fault of the cluster before a fault of the
// job (the admins must hear of it), then the most common class.
const StoredMessage& worst(const std::vector<StoredMessage>& ms, const std::map<std::string, int>& per_class) {
  const StoredMessage* best = &ms.front();
  auto rank = [&](const StoredMessage& m) {
    const int infra = get(m, "attribution") == "infra" ? 1 : 0;
    const auto it = per_class.find(get(m, "class"));
    return std::pair<int, int>(infra, it == per_class.end() ? 0 : it->second);
  };
  for (const auto& m : ms)
    if (rank(m) > rank(*best)) best = &m;
  return *best;
}

// Claims the first place of KEY (an array and its recipient) for M: true when M is the
// first of its array to claim it. The claim is an O_EXCL file in outbox/firsts/, so of
// helpers deciding at once exactly one wins, whatever order their messages' ids (taken
// before the store lands) or their files appear in. A claim older than TTL is stale
// (a reused array id). nullopt when no claim can be made here (unwritable outbox).
std::optional<bool> claim_first(const Outbox& box, const std::string& key, const std::string& id,
                                std::chrono::seconds ttl) {
  char name[32];  // a file name from any recipient
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(kFnv1aBasis, key)));
  const std::filesystem::path dir = box.dir() / "firsts", path = dir / name;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
  for (int attempt = 0; attempt < 2; ++attempt) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.valid()) {
      const std::string line = id + "\n";
      // The file's existence is the claim; the id in it answers M asking again.
      [[maybe_unused]] const ssize_t w = ::write(fd.get(), line.data(), line.size());
      return true;
    }
    if (errno != EEXIST) return std::nullopt;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    if (std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime) < ttl) {
      // Already claimed: by M itself (asked again) or by another task.
      UniqueFd rd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      char buf[128] = {};
      const ssize_t n = rd.valid() ? ::read(rd.get(), buf, sizeof buf - 1) : -1;
      return n > 0 && std::string(buf, static_cast<std::size_t>(n)) == id + "\n";
    }
    ::unlink(path.c_str());  // stale: claim afresh
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> fold_key(const Outbox& box, const StoredMessage& m, const DigestPolicy& p,
                                    std::chrono::system_clock::time_point now) {
  // A digest is a mail: a channel's post goes on its own (its mail, if any, joins the digest).
  if (!p.enabled || !is_failure(m) || !m.channel.empty()) return std::nullopt;
  if (!box.sender_seen(p.sender_recent)) return std::nullopt;  // nobody would send the digest
  const std::string rcpt = first_recipient(m);
  const std::string array = get(m, "array");
  if (!array.empty() && !p.array_per_task) {
    // The first failing task goes at once; every later one joins the array's digest.
    // Of tasks ending together, the first to claim the array goes at once.
    const std::string key = "array:" + array + ":" + rcpt;
    if (const auto first = claim_first(box, key, m.id, std::chrono::hours(24))) {
      if (*first) return std::nullopt;
      return key;
    }
    // No claim here: messages stored before M count (ids sort by time).
    for (const auto& o : box.recent(now - std::chrono::hours(24)))
      if (o.id < m.id && get(o, "array") == array && first_recipient(o) == rcpt && is_failure(o))
        return "array:" + array + ":" + rcpt;
    return std::nullopt;
  }
  int earlier = 0;
  for (const auto& o : box.recent(now - p.window))
    if (o.id < m.id && first_recipient(o) == rcpt && is_failure(o)) ++earlier;
  if (earlier >= p.burst) return "burst:" + rcpt;
  return std::nullopt;
}

Message digest_message(const std::vector<StoredMessage>& ms, const std::string& key) {
  Message d;
  d.envelope = ms.front().envelope;
  std::map<std::string, int> per_class;
  for (const auto& m : ms) ++per_class[get(m, "class").empty() ? "unknown" : get(m, "class")];
  std::vector<std::pair<std::string, int>> classes(per_class.begin(), per_class.end());
  std::stable_sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string counts;
  for (const auto& [cls, n] : classes) counts += (counts.empty() ? "" : ", ") + cls + " (" + std::to_string(n) + ")";
  const std::string array = get(ms.front(), "array");
  const bool is_array = key.rfind("array:", 0) == 0;
  const std::string n = std::to_string(ms.size());
  d.subject = is_array ? "[gpualert] array " + array + ": " + n + " more tasks ended badly: " + counts
                       : "[gpualert] " + n + " more jobs ended badly: " + counts;
  std::ostringstream o;
  o << (is_array ? n + " more tasks of array " + array : n + " more of your jobs")
    << " ended badly; the first failure" << (is_array ? " of the array" : "s of the burst")
    << " went out on " << (is_array ? "its" : "their") << " own. Each is listed once here instead of in a "
    << "message of its own.\n\n";
  o << "Count per class\n";
  for (const auto& [cls, k] : classes) o << "  " << pad(cls, 28) << " " << k << "\n";
  o << "\nJobs\n  " << pad(is_array ? "task" : "job", 16) << pad("class", 24) << pad("who", 10) << pad("node", 14)
    << pad("exit", 14) << pad("elapsed", 10) << "ended (UTC)\n";
  for (const auto& m : ms) {
    const std::string ended = get(m, "ended");
    o << "  " << pad(name_of(m), 16) << pad(get(m, "class"), 24) << pad(get(m, "attribution"), 10)
      << pad(get(m, "node"), 14) << pad(get(m, "exit"), 14) << pad(get(m, "elapsed"), 10)
      << one_line(ended.size() >= 19 ? ended.substr(0, 10) + " " + ended.substr(11, 8) : ended, 20) << "\n";
  }
  const StoredMessage& w = worst(ms, per_class);
  o << "\nThe case to look at first (" << name_of(w) << ", " << get(w, "class") << ")\n";
  std::istringstream ev(get(w, "evidence"));
  for (std::string line; std::getline(ev, line);) o << "  " << line << "\n";
  o << "\nEach job's own message is kept in the outbox's sent/ (gpualert outbox show ID), with its log where the "
       "job ran.\n";
  d.body_text = o.str();
  d.extra_headers = {{"X-Gpualert-Digest", std::to_string(ms.size())}};
  if (is_array) d.extra_headers.emplace_back("X-Gpualert-Array", array);
  d.record = {{"digest", key}};
  return d;
}

std::vector<StoredMessage> assemble_digests(Outbox& box, const DigestPolicy& p,
                                            std::chrono::system_clock::time_point now) {
  std::vector<StoredMessage> made;
  // One assembler at a time per outbox: two senders on a shared spool must not both
  // build the same digest.
  UniqueFd lock(::open((box.dir() / "digest.lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return made;
  std::map<std::string, std::vector<StoredMessage>> groups;
  for (auto& m : box.pending())
    if (!m.digest_key.empty() && !is_infra_key(m.digest_key)) groups[m.digest_key].push_back(std::move(m));
  for (auto& [key, ms] : groups) {
    auto newest = ms.front().created, oldest = ms.front().created;
    for (const auto& m : ms) {
      newest = std::max(newest, m.created);
      oldest = std::min(oldest, m.created);
    }
    if (now - newest < p.quiet && now - oldest < p.window) continue;  // the burst goes on
    const StoredMessage d = box.store(digest_message(ms, key));
    for (const auto& m : ms) box.mark_folded_into(m, d.id);
    made.push_back(d);
  }
  return made;
}

}  // namespace gpualert::notify
