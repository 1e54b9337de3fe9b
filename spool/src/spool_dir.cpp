#include "gpualert/spool/spool_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cctype>
#include <cstring>

namespace gpualert::spool {
namespace {

std::string err(const std::string& what) { return what + ": " + std::strerror(errno); }

// A directory we are about to trust with root's writes must be root's.
bool trusted_dir(int fd, std::string& why, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    why = err("fstat " + name);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    why = name + " is not a directory";
    return false;
  }
  if (st.st_uid != 0) {
    why = name + " is not owned by root";
    return false;
  }
  if (st.st_mode & S_IWOTH) {
    why = name + " is writable by others";
    return false;
  }
  return true;
}

std::optional<DirFd> open_subdir(int parent, const std::string& name, mode_t mode, bool create, std::string& why) {
  if (create && ::mkdirat(parent, name.c_str(), mode) != 0 && errno != EEXIST) {
    why = err("mkdir " + name);
    return std::nullopt;
  }
  const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    why = err("open " + name);
    return std::nullopt;
  }
  return DirFd(fd);
}

}  // namespace

std::string safe_component(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (std::isalnum(c) || c == '-' || c == '_' || c == '.') ? static_cast<char>(c) : '_';
  if (out.empty() || out == "." || out == "..") out = "_";
  return out.substr(0, 128);
}

std::optional<DirFd> open_spool_root(const std::string& path, std::string& why) {
  if (path.empty() || path[0] != '/') {
    why = "spool must be an absolute path";
    return std::nullopt;
  }
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    why = err("mkdir " + path);
    return std::nullopt;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    why = err("open " + path);
    return std::nullopt;
  }
  DirFd d(fd);
  if (!trusted_dir(d.get(), why, path)) return std::nullopt;
  return d;
}

std::optional<DirFd> open_job_dir(const DirFd& spool, std::uint32_t jobid, gid_t gid, bool create, std::string& why) {
  auto jobs = open_subdir(spool.get(), "jobs", 0755, create, why);
  if (!jobs || !trusted_dir(jobs->get(), why, "jobs")) return std::nullopt;
  const std::string name = std::to_string(jobid);
  auto job = open_subdir(jobs->get(), name, 0750, create, why);
  if (!job || !trusted_dir(job->get(), why, "jobs/" + name)) return std::nullopt;
  if (create) {
    // Group-readable for the job's group, so the user can read their own logs.
    if (::fchown(job->get(), 0, gid) != 0 || ::fchmod(job->get(), 0750) != 0) {
      why = err("chown jobs/" + name);
      return std::nullopt;
    }
  }
  return job;
}

int create_owned_file(const DirFd& dir, const std::string& name, uid_t uid, gid_t gid, std::string& used,
                      std::string& why) {
  for (int i = 0; i < 100; ++i) {
    used = i == 0 ? name : name + "." + std::to_string(i);
    const int fd = ::openat(dir.get(), used.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND,
                            0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      why = err("create " + used);
      return -1;
    }
    if (::fchown(fd, uid, gid) != 0) {
      why = err("chown " + used);
      ::close(fd);
      return -1;
    }
    return fd;
  }
  why = "no free name for " + name;
  return -1;
}

bool write_atomic_at(const DirFd& dir, const std::string& name, const std::string& content, uid_t uid, gid_t gid,
                     std::string& why) {
  const std::string tmp = "." + name + ".tmp." + std::to_string(::getpid());
  ::unlinkat(dir.get(), tmp.c_str(), 0);
  const int fd = ::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (fd < 0) {
    why = err("create " + tmp);
    return false;
  }
  std::size_t off = 0;
  bool ok = true;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = err("write " + tmp);
      ok = false;
      break;
    }
    off += static_cast<std::size_t>(n);
  }
  if (ok && (::fchown(fd, uid, gid) != 0 || ::fsync(fd) != 0)) {
    why = err("finish " + tmp);
    ok = false;
  }
  ::close(fd);
  if (ok && ::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0) {
    why = err("rename " + name);
    ok = false;
  }
  if (!ok) ::unlinkat(dir.get(), tmp.c_str(), 0);
  if (ok) ::fsync(dir.get());
  return ok;
}

std::optional<std::string> read_at(const DirFd& dir, const std::string& name, std::size_t max, std::string& why) {
  const int fd = ::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = err("open " + name);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = name + " is not a regular file";
    ::close(fd);
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  while (out.size() < max) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace gpualert::spool
