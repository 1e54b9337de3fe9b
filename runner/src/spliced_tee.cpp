#include "gpualert/runner/spliced_tee.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace gpualert::runner {
namespace {

constexpr std::size_t kMaxRound = 1 << 20;

enum class Moved { All, Unsupported, Failed };

// Moves exactly N bytes from the pipe FROM to TO. Unsupported: nothing was moved
// (the kernel cannot splice into TO), so the caller may copy instead.
Moved splice_all(int from, int to, std::size_t n, const std::function<void()>& on_signal) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::splice(from, nullptr, to, nullptr, n - done, SPLICE_F_MOVE);
    if (r > 0) {
      done += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) {
      if (on_signal) on_signal();
      continue;
    }
    if (r < 0 && errno == EAGAIN) {  // a non-blocking destination that is full
      pollfd p{to, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    if (r < 0 && done == 0 && (errno == EINVAL || errno == ENOSYS || errno == EBADF)) return Moved::Unsupported;
    return Moved::Failed;
  }
  return Moved::All;
}

// Copies N bytes from the pipe FROM to TO through BUF (the fallback).
bool copy_n(int from, int to, std::size_t n, std::string& buf, const std::function<void()>& on_signal) {
  while (n > 0) {
    const ssize_t got = ::read(from, buf.data(), std::min(n, buf.size()));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    if (to >= 0 && !write_out(to, std::string_view(buf.data(), static_cast<std::size_t>(got)), on_signal)) return false;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

// Reads and drops N bytes from the pipe FD (what is left of a round that failed).
void drain(int fd, std::size_t n) {
  char tmp[4096];
  while (n > 0) {
    const ssize_t got = ::read(fd, tmp, std::min(n, sizeof tmp));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    n -= static_cast<std::size_t>(got);
  }
}

// Bytes waiting in the pipe FD.
std::size_t pipe_bytes(int fd) {
  int n = 0;
  return ::ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? static_cast<std::size_t>(n) : 0;
}

}  // namespace

SplicedTee::SplicedTee() {
  if (::pipe2(mid_, O_CLOEXEC) != 0 || ::pipe2(aux_, O_CLOEXEC) != 0) return;
  ::fcntl(mid_[1], F_SETPIPE_SZ, static_cast<int>(kMaxRound));
  ::fcntl(aux_[1], F_SETPIPE_SZ, static_cast<int>(kMaxRound));
  // A round must fit both pipes whole: the duplicate is made of all of it at once.
  const int a = ::fcntl(mid_[1], F_GETPIPE_SZ), b = ::fcntl(aux_[1], F_GETPIPE_SZ);
  if (a <= 0 || b <= 0) return;
  round_ = static_cast<std::size_t>(std::min(a, b));
  usable_ = true;
}

SplicedTee::~SplicedTee() {
  for (int fd : {mid_[0], mid_[1], aux_[0], aux_[1]})
    if (fd >= 0) ::close(fd);
}

bool SplicedTee::pump(TeeSource& s, LogWriter& log, std::string& buf, const std::function<void()>& on_signal,
                      std::vector<std::string>& notes) {
  if (!usable_ || !s.splice || s.out_broken || !log.ok() || log.fd() < 0)
    return runner::pump(s, log, buf, on_signal, notes);
  // Take what the program wrote (a move of page references, not a copy).
  ssize_t n;
  do n = ::splice(s.fd, nullptr, mid_[1], nullptr, round_, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return true;  // nothing there after all
  if (n < 0) {  // not a pipe (a pty): copy as before, from now on
    s.splice = false;
    return runner::pump(s, log, buf, on_signal, notes);
  }
  if (n == 0) {  // EOF
    ::close(s.fd);
    s.open = false;
    return false;
  }
  // Its duplicate, for the log (the spare pipe is empty and holds a whole round).
  ssize_t dup;
  do dup = ::tee(mid_[0], aux_[1], static_cast<std::size_t>(n), 0);
  while (dup < 0 && errno == EINTR);
  const bool duplicated = dup == n;  // always, with two empty pipes of round_ bytes
  if (!duplicated) {  // the user's copy still goes out; the log stops here
    if (dup > 0) drain(aux_[0], static_cast<std::size_t>(dup));
    usable_ = false;
    log.fail("log write failed: the output could not be duplicated for it");
  }
  const auto len = static_cast<std::size_t>(n);
  // The user's copy first: their view comes first.
  bool out_ok = true;
  switch (splice_all(mid_[0], s.out, len, on_signal)) {
    case Moved::All: break;
    case Moved::Unsupported:  // a terminal, an O_APPEND file: copy these bytes and stop splicing
      s.splice = false;
      out_ok = copy_n(mid_[0], s.out, len, buf, on_signal);
      break;
    case Moved::Failed: out_ok = false; break;
  }
  const int out_errno = errno;
  if (!out_ok) drain(mid_[0], pipe_bytes(mid_[0]));  // what the destination refused: gone with it
  // The log's copy, from the spare pipe.
  switch (duplicated ? splice_all(aux_[0], log.fd(), len, on_signal) : Moved::Failed) {
    case Moved::All: log.account(s.tag, len); break;
    case Moved::Unsupported: {
      usable_ = false;  // the log cannot take splices: append through a buffer from now on
      std::size_t left = len;
      while (left > 0) {
        const ssize_t got = ::read(aux_[0], buf.data(), std::min(left, buf.size()));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        log.append(s.tag, std::string_view(buf.data(), static_cast<std::size_t>(got)));
        left -= static_cast<std::size_t>(got);
      }
      break;
    }
    case Moved::Failed:
      if (duplicated) log.fail(std::string("log write failed: ") + std::strerror(errno));
      usable_ = false;  // what is left in the spare pipe is dropped with it
      break;
  }
  if (!out_ok) {
    s.out_broken = true;
    notes.push_back(std::string(s.tag == StreamTag::Out ? "stdout" : "stderr") + " could not be written (" +
                    std::strerror(out_errno) + "); the program's pipe was closed so it sees the same error");
    ::close(s.fd);
    s.open = false;
    return false;
  }
  return true;
}

}  // namespace gpualert::runner
