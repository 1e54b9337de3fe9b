#include "gpualert/runner/destination.hpp"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace gpualert::runner {

bool same_open_file(int a, int b, bool try_kcmp) {
  if (try_kcmp) {
    const long r = ::syscall(SYS_kcmp, ::getpid(), ::getpid(), KCMP_FILE, a, b);
    if (r >= 0) return r == 0;
  }
  // No kcmp (kernel without CONFIG_KCMP, or a seccomp filter saying EPERM): the
  // same inode with the same flags and offset. Two separate opens can match
  // too; merging them only changes which of the two equal fds the bytes go through.
  struct stat sa{}, sb{};
  if (::fstat(a, &sa) != 0 || ::fstat(b, &sb) != 0) return false;
  if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino) return false;
  if (::fcntl(a, F_GETFL) != ::fcntl(b, F_GETFL)) return false;
  errno = 0;
  const off_t pa = ::lseek(a, 0, SEEK_CUR);
  const int ea = errno;
  errno = 0;
  const off_t pb = ::lseek(b, 0, SEEK_CUR);
  return pa == pb && ea == errno;
}

// Whether writes to A and B land in one ordered sequence: one open file, or
// one file both opened for appending (slurmstepd opens `-o F` twice that way
// when no -e is given), or one pipe or socket. Then one pipe must carry both.
bool one_destination(int a, int b) {
  if (same_open_file(a, b)) return true;
  struct stat sa{}, sb{};
  if (::fstat(a, &sa) != 0 || ::fstat(b, &sb) != 0) return false;
  if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino) return false;
  if (!S_ISREG(sa.st_mode)) return true;
  return (::fcntl(a, F_GETFL) & O_APPEND) && (::fcntl(b, F_GETFL) & O_APPEND);
}

}  // namespace gpualert::runner
