#include "gpualert/spool/spool_expiry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace gpualert::spool {
namespace {

// Removes PARENT/NAME when it is a directory of plain files none of which
// changed since CUTOFF (a running job's log keeps changing, so it stays).
bool remove_if_old(int parent, const std::string& name, std::time_t cutoff) {
  const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool old = ::fstat(fd, &st) == 0 && st.st_mtime < cutoff;
  const auto files = list_names(fd);
  for (const auto& f : files) {
    struct stat fst {};
    if (!old) break;
    if (::fstatat(fd, f.c_str(), &fst, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(fst.st_mode) || fst.st_mtime >= cutoff)
      old = false;
  }
  if (old)
    for (const auto& f : files) ::unlinkat(fd, f.c_str(), 0);
  ::close(fd);
  return old && ::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0;
}

}  // namespace

std::size_t expire_job_dirs(const DirFd& spool, std::chrono::seconds keep, std::size_t max_removed) {
  const std::time_t cutoff = std::time(nullptr) - static_cast<std::time_t>(keep.count());
  std::size_t removed = 0;
  for (const char* area : {"jobs", "stale"}) {
    const int dir = ::openat(spool.get(), area, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) continue;
    for (const auto& name : list_names(dir)) {
      if (removed >= max_removed) break;
      if (remove_if_old(dir, name, cutoff)) ++removed;
    }
    ::close(dir);
  }
  return removed;
}

}  // namespace gpualert::spool
