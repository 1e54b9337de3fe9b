#pragma once
// Owns a raw descriptor (a file, a directory opened for *at() calls) so that no
// error path can leak it.
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <utility>

namespace gpualert {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Hands the descriptor over; the caller closes it.
  int release() { return std::exchange(fd_, -1); }
  // Closes and reports the error close() can return (late write errors on NFS).
  int close_checked() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_ = -1;
};

// read() until N bytes or end of file; returns bytes read or -1 (errno set).
inline long read_full(int fd, char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, buf + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<long>(got);
}

}  // namespace gpualert
