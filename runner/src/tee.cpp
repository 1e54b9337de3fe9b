#include "gpualert/runner/tee.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpualert::runner {

bool write_out(int fd, std::string_view data, const std::function<void()>& on_signal) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n >= 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EINTR) {  // no SA_RESTART: a stalled reader must not delay a signal
      if (on_signal) on_signal();
      continue;
    }
    if (errno == EAGAIN) {  // someone made the shared descriptor non-blocking
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    return false;
  }
  return true;
}

bool pump(TeeSource& s, LogWriter& log, std::string& buf, const std::function<void()>& on_signal,
          std::vector<std::string>& notes) {
  const ssize_t got = ::read(s.fd, buf.data(), buf.size());
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (got <= 0) {
    ::close(s.fd);
    s.open = false;
    return false;
  }
  const std::string_view chunk(buf.data(), static_cast<std::size_t>(got));
  if (!s.out_broken && !write_out(s.out, chunk, on_signal)) {
    s.out_broken = true;
    notes.push_back(std::string(s.tag == StreamTag::Out ? "stdout" : "stderr") + " could not be written (" +
                    std::strerror(errno) + "); the program's pipe was closed so it sees the same error");
    log.append(s.tag, chunk);
    ::close(s.fd);
    s.open = false;
    return false;
  }
  log.append(s.tag, chunk);
  return true;
}

}  // namespace gpualert::runner
