// Reads the relay password with the same strictness ssh applies to keys.
#include "gpualert/notifier/password_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {

PasswordResult read_password_file(const std::filesystem::path& path) {
  PasswordResult r;
  const std::string where = "password file " + path.string();
  if (path.empty()) {
    r.error = "no password file configured";
    return r;
  }
  // O_NOFOLLOW + fstat: the checks apply to the very file that is read.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    r.error = "cannot open " + where + ": " + std::strerror(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    r.error = where + " is not a regular file";
    return r;
  }
  if (st.st_uid != ::geteuid()) {
    r.error = where + " is not owned by the current user (uid " + std::to_string(::geteuid()) + ")";
    return r;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    r.error = where + " is accessible by group or others (mode " + mode + "); run: chmod 600 " + path.string();
    return r;
  }
  char buf[4096];
  const long n = read_full(fd.get(), buf, sizeof buf);
  if (n < 0) {
    r.error = "cannot read " + where + ": " + std::strerror(errno);
    return r;
  }
  if (static_cast<std::size_t>(n) == sizeof buf) {
    r.error = where + " is too large to hold a password";
    ::explicit_bzero(buf, sizeof buf);
    return r;
  }
  std::size_t len = static_cast<std::size_t>(n);
  if (len > 0 && buf[len - 1] == '\n') {
    --len;
    if (len > 0 && buf[len - 1] == '\r') --len;
  }
  r.password.assign(buf, len);
  ::explicit_bzero(buf, sizeof buf);
  if (r.password.empty()) {
    r.error = where + " is empty";
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace gpualert::notify
