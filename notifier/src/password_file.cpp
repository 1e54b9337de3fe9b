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

PasswordResult read_private_file(const std::filesystem::path& path, const std::string& what, std::size_t max_bytes) {
  PasswordResult r;
  const std::string where = what + " " + path.string();
  if (path.empty()) {
    r.error = "no " + what + " configured";
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
  std::string buf(max_bytes + 1, '\0');
  const long n = read_full(fd.get(), buf.data(), buf.size());
  if (n < 0) {
    r.error = "cannot read " + where + ": " + std::strerror(errno);
  } else if (static_cast<std::size_t>(n) > max_bytes) {
    r.error = where + " is larger than " + std::to_string(max_bytes) + " bytes";
  } else {
    r.password.assign(buf.data(), static_cast<std::size_t>(n));
    r.ok = true;
  }
  ::explicit_bzero(buf.data(), buf.size());
  return r;
}

PasswordResult read_password_file(const std::filesystem::path& path) {
  PasswordResult r = read_private_file(path, "password file", 4095);
  if (!r.ok) return r;
  std::string& pw = r.password;
  if (!pw.empty() && pw.back() == '\n') {
    pw.pop_back();
    if (!pw.empty() && pw.back() == '\r') pw.pop_back();
  }
  if (pw.empty()) {
    r.ok = false;
    r.error = "password file " + path.string() + " is empty";
  }
  return r;
}

}  // namespace gpualert::notify
