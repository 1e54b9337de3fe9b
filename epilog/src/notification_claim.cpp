#include "notification_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace gpualert::epilog {

bool claim_notification(const spool::DirFd& dir, int restart_count, const std::string& run_start,
                        std::string& replaced) {
  const std::string name = "notified." + std::to_string(restart_count);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      const std::string text = run_start + "\n";
      const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      ::close(fd);
      return ok;
    }
    std::string why;
    const auto held = spool::read_at(dir, name, 256, why);
    if (!held || *held == run_start + "\n" || run_start.empty()) return false;
    replaced = "a stale " + name + " (run start " + held->substr(0, held->find('\n')) + ") was replaced";
    ::unlinkat(dir.get(), name.c_str(), 0);
  }
  return false;
}

bool leader_reports(const spool::DirFd& leader_dir, int restart_count, std::chrono::seconds wait) {
  const std::string name = "notified." + std::to_string(restart_count);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    struct stat st {};
    if (::fstatat(leader_dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace gpualert::epilog
