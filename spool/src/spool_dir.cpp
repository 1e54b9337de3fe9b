#include "gpualert/spool/spool_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <ctime>

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

namespace {

// The job's owner as recorded when its directory was made ("uid=N\n"); nullopt
// when there is no record yet (or it is unreadable).
std::optional<uid_t> recorded_owner(const DirFd& job) {
  std::string why;
  const auto text = read_at(job, kOwnerFile, 64, why);
  if (!text || text->rfind("uid=", 0) != 0) return std::nullopt;
  try {
    return static_cast<uid_t>(std::stoul(text->substr(4)));
  } catch (...) {
    return std::nullopt;
  }
}

// Records UID as the owner unless another process of the job did it first
// (renameat2 RENAME_NOREPLACE: exactly one record ever appears, complete).
void record_owner(const DirFd& job, uid_t uid) {
  const std::string tmp = std::string(".") + kOwnerFile + ".tmp." + std::to_string(::getpid());
  const int fd = ::openat(job.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string text = "uid=" + std::to_string(uid) + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::renameat2(job.get(), tmp.c_str(), job.get(), kOwnerFile, RENAME_NOREPLACE) != 0)
    ::unlinkat(job.get(), tmp.c_str(), 0);
}

// Moves a directory left by an earlier job with the same id out of the way, to
// <spool>/stale/ (root only), where the admin can look at it.
bool quarantine(const DirFd& spool, const DirFd& jobs, const std::string& name, std::string& why) {
  auto stale = open_subdir(spool.get(), "stale", 0700, true, why);
  if (!stale) return false;
  const std::string dest = name + "-" + std::to_string(::time(nullptr)) + "-" + std::to_string(::getpid());
  if (::renameat(jobs.get(), name.c_str(), stale->get(), dest.c_str()) != 0 && errno != ENOENT) {
    why = err("move jobs/" + name + " to stale/");
    return false;
  }
  return true;
}

}  // namespace

std::optional<DirFd> open_job_dir(const DirFd& spool, std::uint32_t jobid, uid_t uid, bool create, std::string& why,
                                  std::string* note) {
  auto jobs = open_subdir(spool.get(), "jobs", 0755, create, why);
  if (!jobs || !trusted_dir(jobs->get(), why, "jobs")) return std::nullopt;
  const std::string name = std::to_string(jobid);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto job = open_subdir(jobs->get(), name, 0711, create, why);
    if (!job || !trusted_dir(job->get(), why, "jobs/" + name)) return std::nullopt;
    // Traversable, not listable or readable by anyone but root: each file in
    // it is owned by the job's user alone (mode 0600), so no group shares it.
    if (create && (::fchown(job->get(), 0, 0) != 0 || ::fchmod(job->get(), 0711) != 0)) {
      why = err("chown jobs/" + name);
      return std::nullopt;
    }
    auto owner = recorded_owner(*job);
    if (!owner && create) {
      record_owner(*job, uid);
      owner = recorded_owner(*job);
    }
    if (owner && *owner == uid) return job;
    const std::string found = owner ? "uid " + std::to_string(*owner) : "no owner record";
    if (!create) {
      why = "jobs/" + name + " belongs to another job (" + found + ", this job's user is uid " +
            std::to_string(uid) + "): ignored";
      return std::nullopt;
    }
    // A reused job id: the directory is another job's. Never mix the two.
    if (!quarantine(spool, *jobs, name, why)) return std::nullopt;
    if (note) *note = "jobs/" + name + " held an earlier job's files (" + found + "); moved to stale/";
  }
  why = "jobs/" + name + " could not be bound to this job";
  return std::nullopt;
}

std::vector<std::string> list_names(int dirfd) {
  std::vector<std::string> out;
  const int fd = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

bool was_notified(const DirFd& job) {
  for (const auto& n : list_names(job.get()))
    if (n.rfind("notified.", 0) == 0) return true;
  return false;
}

bool retire_job_dir(const DirFd& spool, std::uint32_t jobid, std::string& why) {
  auto jobs = open_subdir(spool.get(), "jobs", 0755, false, why);
  return jobs && trusted_dir(jobs->get(), why, "jobs") && quarantine(spool, *jobs, std::to_string(jobid), why);
}

bool has_step_records(const DirFd& job) {
  for (const auto& n : list_names(job.get()))
    if (n.rfind("step-", 0) == 0) return true;
  return false;
}

void admin_log(const DirFd& spool, const std::string& line) {
  const int fd = ::openat(spool.get(), kAdminLog, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st {};
  // Bounded: a flood of problems must not become a way to fill the spool.
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (16 << 20)) {
    std::string clean;
    for (unsigned char c : line) clean += (c < 0x20 || c == 0x7F) ? '?' : static_cast<char>(c);
    const std::string text = std::to_string(::time(nullptr)) + " " + clean.substr(0, 2000) + "\n";
    [[maybe_unused]] const auto n = ::write(fd, text.data(), text.size());
  }
  ::close(fd);
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
  const int fd = ::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
