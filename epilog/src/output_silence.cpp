#include "output_silence.hpp"

#include "last_real_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

namespace gpualert::epilog {
namespace {

std::string secs(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", s);
  return buf;
}

double seconds_between(std::chrono::system_clock::time_point from, std::chrono::system_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

OutputSilence output_silence(std::optional<std::chrono::system_clock::time_point> ended,
                             std::optional<std::chrono::system_clock::time_point> started,
                             const std::vector<TaskLogStat>& logs) {
  OutputSilence r;
  if (!ended) {
    r.note = "silence before the end unknown: accounting has no end time";
    return r;
  }
  if (logs.empty()) {
    r.note = "silence before the end unknown: no task log of this run could be read";
    return r;
  }
  std::optional<std::chrono::system_clock::time_point> last;
  for (const auto& l : logs)
    if (l.size > 0 && (!last || l.mtime > *last)) last = l.mtime;
  if (last) {
    r.seconds = std::max(0.0, seconds_between(*last, *ended));
    r.note = "last output " + secs(*r.seconds) + " s before the end (newest task log)";
    return r;
  }
  // No task printed anything: silent since the start, if it ran at all.
  if (started && *started <= *ended) {
    r.seconds = seconds_between(*started, *ended);
    r.note = "no task printed anything; silent for the whole run (" + secs(*r.seconds) + " s)";
    return r;
  }
  r.note = "silence before the end unknown: the task logs are empty and the start time is unknown";
  return r;
}

std::vector<TaskLogStat> stat_task_logs(const spool::DirFd& dir, const JobLogs& logs,
                                        std::vector<std::string>& problems) {
  std::vector<TaskLogStat> out;
  for (const auto& s : logs.steps)
    for (const auto& t : s.tasks) {
      if (t.log.empty()) continue;
      struct stat st {};
      if (::fstatat(logs.dir_for(s.job, dir.get()), t.log.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // already reported missing
      if (!S_ISREG(st.st_mode)) {
        problems.push_back(t.log + " is not a regular file; its time is not used");
        continue;
      }
      TaskLogStat ls;
      ls.mtime = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
      ls.size = static_cast<std::uint64_t>(st.st_size);
      // A shell's "Terminated" as Slurm killed the job is not output: what came before it is.
      if (!t.streams.empty())
        if (const auto before = last_output_before_kill_notices(logs.dir_for(s.job, dir.get()), t.log.c_str(), t.streams.c_str()))
          ls.mtime = *before;
      out.push_back(ls);
    }
  return out;
}

}  // namespace gpualert::epilog
