#include "job_logs.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <sstream>
#include <thread>

#include "as_job_user.hpp"
#include "gpualert/common/stream_index.hpp"
#include "capped_copy.hpp"

namespace gpualert::epilog {
namespace {

// batch < 0 < 1 < ... < extern; then node, so the combined log reads in time order.
long step_order(const std::string& step) {
  if (step == "batch") return -1;
  if (step == "extern") return 1L << 40;
  try {
    return std::stol(step);
  } catch (...) {
    return 1L << 39;
  }
}

std::vector<spool::StepRecord> read_records(const spool::DirFd& dir, std::uint32_t uid, std::vector<std::string>& problems) {
  std::vector<spool::StepRecord> out;
  for (const auto& n : spool::list_names(dir.get())) {
    if (n.rfind("step-", 0) != 0 || n.size() < 6 || n.substr(n.size() - 5) != ".json") continue;
    std::string why;
    const auto text = spool::read_at(dir, n, 4 << 20, why);
    if (!text) {
      problems.push_back(n + ": " + why);
      continue;
    }
    try {
      auto r = spool::step_from_json(nlohmann::json::parse(*text));
      // Only root writes here, but a record of another user's job under a reused id is never this job's.
      if (r.uid != uid) {
        problems.push_back(n + ": a record of uid " + std::to_string(r.uid) + ", not this job's user: ignored");
        continue;
      }
      out.push_back(std::move(r));
    } catch (const std::exception& e) {
      problems.push_back(n + ": malformed step record: " + e.what());
    }
  }
  // A requeued job leaves the records of earlier runs: keep the newest record
  // per (step, node), and drop steps that ended before the newest run began.
  std::map<std::pair<std::string, std::string>, spool::StepRecord> newest;
  for (auto& r : out) {
    auto& slot = newest[{r.step, r.node}];
    if (slot.ended.empty() || r.ended > slot.ended) slot = std::move(r);
  }
  std::string run_started;
  for (const auto& [key, r] : newest)
    if (key.first == "batch" && r.started > run_started) run_started = r.started;
  out.clear();
  for (auto& [key, r] : newest)
    if (run_started.empty() || r.ended >= run_started) out.push_back(std::move(r));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::make_pair(step_order(a.step), a.node) < std::make_pair(step_order(b.step), b.node);
  });
  return out;
}

// The capture's own notes written after the program's first output (what the
// tee left out, a full spool), found through the streams index; the notes at
// the start (a terminal, one file for both streams) only describe the capture.
std::vector<std::string> capture_notes(int dir, const spool::TaskRecord& t) {
  std::vector<std::string> out;
  if (t.streams.empty()) return out;
  const int idx = ::openat(dir, t.streams.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (idx < 0) return out;
  std::string index(1 << 20, '\0');
  const ssize_t n = ::read(idx, index.data(), index.size());
  ::close(idx);
  if (n <= 0) return out;
  index.resize(static_cast<std::size_t>(n));
  const int log = ::openat(dir, t.log.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (log < 0) return out;
  std::istringstream lines(index);
  std::string line;
  bool program_spoke = false;
  while (std::getline(lines, line) && out.size() < 8) {
    const auto seg = parse_stream_segment(line);
    if (!seg) continue;
    if (seg->tag != 'g') {
      program_spoke = true;
      continue;
    }
    if (!program_spoke || seg->length == 0 || seg->length > 4096) continue;
    std::string text(static_cast<std::size_t>(seg->length), '\0');
    if (::pread(log, text.data(), text.size(), static_cast<off_t>(seg->offset)) != static_cast<ssize_t>(text.size()))
      continue;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out.push_back(t.log + ": " + text);
  }
  ::close(log);
  return out;
}

// Runs as the job's user: every task log into OUT, each capped, the job capped.
// Answers "<bytes written>\n" then one problem per line.
std::string combine_task_logs(const JobLogs& r, int fallback_dir, int out, const LogLimits& limits) {
  std::uint64_t written = 0, tasks = 0;
  std::string problems;
  for (const auto& s : r.steps) tasks += s.tasks.size();
  // Each task gets its share of the job's bytes, head and tail alike.
  const std::uint64_t share = tasks ? limits.job_bytes / tasks / 2 : limits.job_bytes;
  const std::uint64_t head = std::min(limits.task_head, share), tail = std::min(limits.task_tail, share);
  for (const auto& s : r.steps) {
    for (const auto& t : s.tasks) {
      // Worded so that no progress parser mistakes it for a training step.
      const std::string where = s.step == "batch" ? std::string("batch script") : "srun #" + s.step;
      const std::string header = "==> " + t.log + ": " + where + ", node " + s.node + ", task " +
                                 std::to_string(t.task) + " <==\n";
      if (::write(out, header.data(), header.size()) == static_cast<ssize_t>(header.size())) written += header.size();
      if (written >= limits.job_bytes) {
        problems += t.log + " not read: the job's logs already reached " + std::to_string(limits.job_bytes) + " bytes\n";
        continue;
      }
      const int in = ::openat(r.dir_for(s.job, fallback_dir), t.log.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (in < 0) {
        problems += t.log + " is missing or not readable by the job's user\n";
        continue;
      }
      const CopyResult c = copy_capped(in, out, head, tail);
      ::close(in);
      for (const auto& note : capture_notes(r.dir_for(s.job, fallback_dir), t)) problems += note + "\n";
      written += c.written;
      if (!c.ok) problems += t.log + ": not fully copied (not a regular file, or the spool is full)\n";
      if (c.skipped || c.holes)
        problems += t.log + ": " + std::to_string(c.skipped) + " bytes over the cap and " + std::to_string(c.holes) +
                    " bytes of holes left out\n";
    }
  }
  ::fsync(out);
  return std::to_string(written) + "\n" + problems;
}

}  // namespace

std::vector<spool::StepRecord> read_step_records(const spool::DirFd& dir, std::uint32_t uid,
                                                 std::vector<std::string>& problems) {
  return read_records(dir, uid, problems);
}

LogLimits limits_for_space(int dirfd, std::uint64_t reserve) {
  LogLimits l;
  struct statvfs v {};
  if (::fstatvfs(dirfd, &v) != 0) return l;
  const std::uint64_t free = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
  const std::uint64_t room = free > reserve ? free - reserve : 0;
  l.job_bytes = std::clamp<std::uint64_t>(room, 1ULL << 20, l.job_bytes);
  return l;
}

JobLogs collect_job_logs(const spool::DirFd& dir, const std::filesystem::path& dir_path,
                         const std::vector<std::string>& nodes, std::chrono::seconds wait, int restart,
                         std::uint32_t uid, std::uint32_t gid, const LogLimits& limits,
                         const std::vector<const spool::DirFd*>& more_dirs) {
  JobLogs r;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    r.problems.clear();
    r.steps = read_records(dir, uid, r.problems);
    std::set<std::string> seen;
    for (const auto& s : r.steps) seen.insert(s.node);
    r.nodes_seen.assign(seen.begin(), seen.end());
    r.nodes_missing.clear();
    for (const auto& n : nodes)
      if (!seen.count(n)) r.nodes_missing.push_back(n);
    if (r.nodes_missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (!r.steps.empty()) r.dir_of_job[r.steps.front().job] = dir.get();
  for (const auto* more : more_dirs) {
    auto steps = read_records(*more, uid, r.problems);
    for (auto& st : steps) {
      r.dir_of_job[st.job] = more->get();
      r.steps.push_back(std::move(st));
    }
  }
  if (!more_dirs.empty())  // a heterogeneous step runs in every component: keep its parts together
    std::stable_sort(r.steps.begin(), r.steps.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(step_order(a.step), a.job, a.node) < std::make_tuple(step_order(b.step), b.job, b.node);
    });

  const std::string combined = restart > 0 ? "combined.r" + std::to_string(restart) + ".log" : "combined.log";
  r.combined = dir_path / combined;
  // The user's own bytes: their file (0600), no one else's to read.
  const int out = ::openat(dir.get(), combined.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out >= 0 && ::fchown(out, uid, gid) != 0) r.problems.push_back("cannot give combined.log to its user");
  if (out < 0) {
    r.problems.push_back("cannot write combined.log");
    r.combined.clear();
    return r;
  }
  std::string why;
  const auto answer = run_as_user({uid, gid, {}}, [&] { return combine_task_logs(r, dir.get(), out, limits); },
                                  std::chrono::seconds(300), why, 1 << 20);
  ::close(out);
  if (!answer) {
    r.problems.push_back("the task logs could not be read as uid " + std::to_string(uid) + ": " + why);
    return r;
  }
  std::istringstream lines(*answer);
  std::string line;
  if (std::getline(lines, line)) r.combined_bytes = std::strtoull(line.c_str(), nullptr, 10);
  while (std::getline(lines, line))
    if (!line.empty()) r.problems.push_back(line);
  return r;
}

}  // namespace gpualert::epilog
