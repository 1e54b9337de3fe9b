#include "gpualert/runner/run_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <system_error>

#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/fallback_dir.hpp"

namespace gpualert::runner {
namespace fs = std::filesystem;
namespace {

std::string stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  // Not strftime: it loads the time-zone database (tzset), a file read before the job starts.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  return buf;
}

std::string short_host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  std::string h = buf;
  if (auto dot = h.find('.'); dot != std::string::npos) h.resize(dot);
  for (char& c : h)
    if (c == '/' || c == '\0') c = '_';
  return h.empty() ? "host" : h;
}

int open_new(const fs::path& p) {
  // No O_APPEND: the wrapper is the file's only writer, and splice(2) refuses append-only files.
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot create " + p.string());
  return fd;
}

// Moves an earlier run's files aside instead of overwriting them.
void keep_previous(const fs::path& dir) {
  static const char* names[] = {"output.log", "output.streams", "run.json", "verdict.json",
                                "progress.json", "alerts.json", "watch.log"};  // the live watcher's too
  bool any = false;
  for (const char* n : names) any = any || fs::exists(fs::symlink_status(dir / n));
  if (!any) return;
  fs::path prev = dir / ("previous-" + stamp());
  for (int i = 1; fs::exists(fs::symlink_status(prev)); ++i) prev = dir / ("previous-" + stamp() + "-" + std::to_string(i));
  make_dirs(prev, 0700);
  for (const char* n : names)
    if (fs::exists(fs::symlink_status(dir / n))) fs::rename(dir / n, prev / n);
}

RunDir open_in(const fs::path& dir, bool durable_now) {
  RunDir r;
  r.dir = dir;
  r.log = dir / "output.log";
  r.streams = dir / "output.streams";
  r.run_json = dir / "run.json";
  r.verdict_json = dir / "verdict.json";
  r.log_fd = open_new(r.log);
  try {
    r.streams_fd = open_new(r.streams);
    if (durable_now) r.make_durable();
  } catch (...) {
    ::close(r.log_fd);
    if (r.streams_fd >= 0) ::close(r.streams_fd);
    throw;
  }
  return r;
}

fs::path fresh_dir(const fs::path& runs) {
  make_dirs(runs, 0700);
  const std::string base = stamp() + "-" + short_host() + "-" + std::to_string(::getpid());
  for (int i = 0; i < 1000; ++i) {
    fs::path p = runs / (i == 0 ? base : base + "-" + std::to_string(i));
    if (::mkdir(p.c_str(), 0700) == 0) return p;
    if (errno != EEXIST) throw std::system_error(errno, std::generic_category(), "cannot create " + p.string());
  }
  throw std::runtime_error("cannot find a free run directory name under " + runs.string());
}

}  // namespace

void RunDir::make_durable() const {
  if (::fsync(log_fd) != 0) throw std::system_error(errno, std::generic_category(), "cannot fsync " + log.string());
  sync_dir(dir);
}

std::optional<RunDir> prepare_run_dir(const std::optional<fs::path>& explicit_dir, const fs::path& state_dir,
                                      std::vector<std::string>& errors, bool durable_now) {
  std::vector<std::string> notes;
  if (explicit_dir) {
    try {
      make_dirs(*explicit_dir, 0700);
      keep_previous(*explicit_dir);
      return open_in(*explicit_dir, durable_now);
    } catch (const std::exception& e) {
      errors.push_back(std::string("run directory: ") + e.what());
    }
  } else {
    try {
      return open_in(fresh_dir(state_dir / "runs"), durable_now);
    } catch (const std::exception& e) {
      errors.push_back(std::string("run directory: ") + e.what());
    }
  }
  // Fallback: a private directory under TMPDIR, so the log still exists.
  try {
    RunDir r = open_in(fresh_dir(private_fallback_dir() / "runs"), durable_now);
    r.warnings.push_back("the log went to the fallback directory " + r.dir.string());
    return r;
  } catch (const std::exception& e) {
    errors.push_back(std::string("fallback run directory: ") + e.what());
  }
  return std::nullopt;
}

}  // namespace gpualert::runner
