#include "gpualert/live/job_watch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <thread>

#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/live_scan.hpp"
#include "gpualert/common/unique_fd.hpp"
#include "gpualert/live/process_tree.hpp"
#include "last_line.hpp"

namespace gpualert::live {
namespace {

// At most this much of one sample is read per look (a sample is at most 1 MiB).
constexpr std::size_t kLookBytes = 4u << 20;

struct Sample {
  UniqueFd fd;
  pid_t writer = 0;
  std::uint64_t offset = 0;
  std::unique_ptr<classify::LiveScan> scan;
  LastLine last;
  Clock::time_point grew{};  // when new lines last arrived (epoch: never)
  bool tee_seen = false;     // the tee held its lock at some look
  bool tee_lost = false;     // ... and later did not, while the step ran
};

// The tee holds a shared lock on its sample while it runs, and turns the sample read-only
// when it ends by itself: the lock free on a writable sample while the step still runs
// means the tee died (killed, crashed) and the task's output is not watched.
bool tee_died(Sample& s) {
  if (s.tee_lost) return false;
  if (::flock(s.fd.get(), LOCK_EX | LOCK_NB) != 0) {
    s.tee_seen = true;
    return false;
  }
  ::flock(s.fd.get(), LOCK_UN);
  if (!s.tee_seen) return false;  // not started yet (the file is made before the tee)
  // A tee that ended by itself turned its sample read-only first.
  struct stat st {};
  if (::fstat(s.fd.get(), &st) == 0 && (st.st_mode & S_IWUSR) == 0) return false;
  s.tee_lost = true;
  return true;
}

// The task a sample belongs to, for people: "batch.task0".
std::string task_of(const std::string& name) {
  const auto p = name.find(".p");
  return p == std::string::npos ? name : name.substr(0, p);
}

bool digits(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> names_in(int dir) {
  std::vector<std::string> out;
  const int fd = ::dup(dir);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

bool writer_alive(const JobWatch& w, pid_t pid) {
  if (pid <= 0) return false;
  const std::string name = process_name(pid, w.proc);
  return !name.empty() && (w.stepd_name.empty() || name == w.stepd_name);
}

// Reads what the sample gained since the last look; a sample that restarted from
// empty (it passed its cap) is read again from its start.
void look(Sample& s, Clock::time_point now, std::vector<char>& buf) {
  struct stat st {};
  if (::fstat(s.fd.get(), &st) != 0) return;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < s.offset) s.offset = 0;
  std::size_t got = 0;
  while (s.offset < size && got < kLookBytes) {
    const ssize_t n = ::pread(s.fd.get(), buf.data(), buf.size(), static_cast<off_t>(s.offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    s.scan->feed(chunk);
    s.last.feed(chunk);
    s.offset += static_cast<std::uint64_t>(n);
    got += static_cast<std::size_t>(n);
  }
  if (got > 0) s.grew = now;
}

// The task whose loss speaks for the job: one with a non-finite loss, else the one
// that printed the most losses, then the most steps.
const Sample* speaker(const std::map<std::string, Sample>& samples) {
  const Sample* best = nullptr;
  classify::LiveSnapshot bs;
  for (const auto& [name, s] : samples) {
    const auto snap = s.scan->snapshot();
    const auto key = [](const classify::LiveSnapshot& x) {
      return std::make_tuple(x.nonfinite > 0, x.losses, x.step, x.lines);
    };
    if (!best || key(snap) > key(bs)) {
      best = &s;
      bs = snap;
    }
  }
  return best;
}

}  // namespace

pid_t writer_pid(const std::string& name) {
  for (std::size_t at = name.find(".p"); at != std::string::npos; at = name.find(".p", at + 1)) {
    const auto end = name.find('.', at + 2);
    if (end == std::string::npos) break;
    const std::string n = name.substr(at + 2, end - at - 2);
    if (digits(n)) return static_cast<pid_t>(std::stol(n));
  }
  return 0;
}

bool is_sample_of(const std::string& name, const std::string& node) {
  const std::string tail = "." + node + ".live";
  const auto at = name.rfind(tail);
  if (at == std::string::npos || at == 0) return false;
  const std::string rest = name.substr(at + tail.size());
  return rest.empty() || (rest[0] == '.' && digits(rest.substr(1)));
}

void watch_job(const JobWatch& w, const std::function<void(const Alert&)>& emit,
               const std::function<void(const JobRound&)>& round) {
  std::string note;
  const classify::Classifier c = classify::Classifier::with_builtin_rules_or_alone(w.rule_files, note);
  Limits limits{w.started, w.stall_after, w.time_limit};
  limits.line_numbers = false;  // a sample's line numbers are not the log's
  limits.cancel_after_stall = w.cancel_after_stall;
  Conditions cond(limits);
  std::map<std::string, Sample> samples;
  std::vector<std::string> ignored;  // samples whose writer was gone when first seen
  std::vector<char> buf(256u << 10);
  std::vector<Alert> held;
  for (;;) {
    const auto now = Clock::now();
    struct stat st {};
    if (now >= w.give_up || ::fstat(w.dir, &st) != 0 || st.st_nlink == 0) return;
    if (::fstatat(w.dir, w.end_marker.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return;
    for (const auto& name : names_in(w.dir)) {
      if (!is_sample_of(name, w.node) || samples.count(name) ||
          std::find(ignored.begin(), ignored.end(), name) != ignored.end())
        continue;
      Sample s;
      s.writer = writer_pid(name);
      // An earlier run's sample (a requeued job): its step is over.
      if (!writer_alive(w, s.writer)) {
        ignored.push_back(name);
        continue;
      }
      s.fd = UniqueFd(::openat(w.dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      struct stat fs {};
      if (!s.fd.valid() || ::fstat(s.fd.get(), &fs) != 0 || !S_ISREG(fs.st_mode)) {
        ignored.push_back(name);
        continue;
      }
      s.scan = std::make_unique<classify::LiveScan>(c);
      samples.emplace(name, std::move(s));
    }
    Observation o;
    o.at = now;
    o.last_output = w.started;
    std::vector<pid_t> writers;
    std::vector<Alert> lost;
    for (auto& [name, s] : samples) {
      look(s, now, buf);
      if (writer_alive(w, s.writer) && tee_died(s))
        lost.push_back({"capture_lost", "gpualert's capture of " + task_of(name) + " stopped while its step runs",
                        {"its output is no longer copied to the job's files nor kept by gpualert; the task's writes "
                         "to it fail from here",
                         "the live alerts cannot see this task any more; the final message has what was kept"},
                        now});
      if (s.tee_lost) continue;
      if (s.grew > o.last_output) {
        o.last_output = s.grew;
        o.last_line = s.last.line;
      }
      if (std::find(writers.begin(), writers.end(), s.writer) == writers.end()) writers.push_back(s.writer);
    }
    if (o.last_line.empty())
      for (const auto& [name, s] : samples)
        if (!s.last.line.empty()) o.last_line = s.last.line;
    o.alive = false;
    double cpu = 0;
    bool cpu_known = false;
    for (const pid_t p : writers) {
      if (!writer_alive(w, p)) continue;
      const TreeUse u = tree_use(p, w.proc);
      o.alive = o.alive || u.alive;
      if (u.cpu_s) {
        cpu += *u.cpu_s;
        cpu_known = true;
      }
    }
    if (cpu_known) o.cpu_s = cpu;
    if (const Sample* sp = speaker(samples)) o.snap = sp->scan->snapshot();
    // An alert goes out one look after its condition fired, if the job still runs then:
    // a job that ends in the same breath gets its verdict, not a warning as well.
    if (o.alive)
      for (const Alert& a : held) emit(a);
    held = cond.observe(o);
    for (const Alert& a : lost) emit(a);  // seen with the step alive: nothing to confirm
    if (round) {
      JobRound r{o, samples.size(), {}};
      for (const auto& a : cond.fired()) r.alerts.push_back(a.condition);
      round(r);
    }
    std::this_thread::sleep_for(w.interval);
  }
}

}  // namespace gpualert::live
