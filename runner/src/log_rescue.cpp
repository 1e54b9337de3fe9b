#include "gpualert/runner/log_rescue.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpualert/common/durable_file.hpp"

namespace gpualert::runner {
namespace {

// True when PATH names the very file FD is open on.
bool same_file(const std::filesystem::path& path, int fd) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Copies everything FD holds into a new file at TO (never over an existing one).
bool copy_back(int fd, const std::filesystem::path& to, std::string& why) {
  // The writer's descriptor is write-only: read the same file through /proc.
  const int in = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    why = std::string("cannot reopen the log: ") + std::strerror(errno);
    return false;
  }
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) {
    why = "cannot create " + to.string() + ": " + std::strerror(errno);
    ::close(in);
    return false;
  }
  bool ok = true;
  for (;;) {
    const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, 1 << 30, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      why = std::string("copying the log back failed: ") + std::strerror(errno);
      ok = false;
      break;
    }
  }
  if (ok && ::fsync(out) != 0) ok = false;
  ::close(in);
  ::close(out);
  return ok;
}

}  // namespace

std::string restore_removed_log(const RunDir& rd, const LogWriter& log) {
  if (log.fd() < 0 || same_file(rd.log, log.fd())) return "";
  try {
    make_dirs(rd.dir, 0700);
  } catch (const std::exception& e) {
    return std::string("the run directory was removed while the job ran and cannot be made again: ") + e.what();
  }
  std::string why;
  if (!copy_back(log.fd(), rd.log, why)) return "the run directory was removed while the job ran; " + why;
  if (log.streams_fd() >= 0 && !same_file(rd.streams, log.streams_fd())) copy_back(log.streams_fd(), rd.streams, why);
  sync_dir(rd.dir);
  return "the run directory was removed while the job ran; the log was restored from the open file (" +
         rd.log.string() + ")";
}

}  // namespace gpualert::runner
