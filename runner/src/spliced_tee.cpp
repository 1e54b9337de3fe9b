#include "gpualert/runner/spliced_tee.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

SplicedTee::SplicedTee() {
  if (::pipe2(aux_, O_CLOEXEC) != 0) return;
  ::fcntl(aux_[1], F_SETPIPE_SZ, static_cast<int>(kMaxRound));
  usable_ = true;
}

SplicedTee::~SplicedTee() {
  for (int fd : aux_)
    if (fd >= 0) ::close(fd);
}

bool SplicedTee::pump(TeeSource& s, LogWriter& log, std::string& buf, const std::function<void()>& on_signal,
                      std::vector<std::string>& notes) {
  if (!usable_ || !s.splice || s.out_broken || !log.ok() || log.fd() < 0)
    return runner::pump(s, log, buf, on_signal, notes);
  // Duplicate what is in the program's pipe into the spare one (nothing is consumed).
  ssize_t n;
  do n = ::tee(s.fd, aux_[1], kMaxRound, SPLICE_F_NONBLOCK);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return true;  // nothing there after all
  if (n < 0) {  // not two pipes (a pty): copy as before, from now on
    s.splice = false;
    return runner::pump(s, log, buf, on_signal, notes);
  }
  if (n == 0) {  // EOF
    ::close(s.fd);
    s.open = false;
    return false;
  }
  const auto len = static_cast<std::size_t>(n);
  // The user's copy first: their view comes first.
  bool out_ok = true;
  switch (splice_all(s.fd, s.out, len, on_signal)) {
    case Moved::All: break;
    case Moved::Unsupported:  // a terminal, an O_APPEND file: copy these bytes and stop splicing
      s.splice = false;
      out_ok = copy_n(s.fd, s.out, len, buf, on_signal);
      break;
    case Moved::Failed: out_ok = false; break;
  }
  // The log's copy, from the spare pipe.
  switch (splice_all(aux_[0], log.fd(), len, on_signal)) {
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
      log.fail(std::string("log write failed: ") + std::strerror(errno));
      usable_ = false;  // what is left in the spare pipe is dropped with it
      break;
  }
  if (!out_ok) {
    s.out_broken = true;
    notes.push_back(std::string(s.tag == StreamTag::Out ? "stdout" : "stderr") + " could not be written (" +
                    std::strerror(errno) + "); the program's pipe was closed so it sees the same error");
    ::close(s.fd);
    s.open = false;
    return false;
  }
  return true;
}

}  // namespace gpualert::runner
