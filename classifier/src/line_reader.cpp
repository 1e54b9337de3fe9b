// Streaming input: fixed-size buffers, lines capped, any bytes accepted.
#include "line_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

namespace gpualert::classify::detail {

void LineSplitter::emit() {
  std::string_view v(buf_);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);  // CRLF logs
  sink_(v, next_++);
  buf_.clear();
  overlong_ = false;
}

void LineSplitter::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const auto nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    if (!overlong_) {
      const std::size_t room = kMaxLineBytes - buf_.size();
      if (piece.size() > room) {
        buf_.append(piece.substr(0, room));
        overlong_ = true;
        ++long_lines_;
      } else {
        buf_.append(piece);
      }
    }
    if (nl == std::string_view::npos) return;
    emit();
    chunk.remove_prefix(nl + 1);
  }
}

void LineSplitter::finish() {
  if (!buf_.empty() || overlong_) emit();
}

void LineSplitter::restart_at(std::uint64_t next) {
  buf_.clear();
  overlong_ = false;
  next_ = next;
}

namespace {

constexpr std::size_t kChunk = 1 << 20;

// read() that retries on EINTR; returns 0 at EOF.
std::size_t read_some(int fd, char* p, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd, p, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "read");
  }
}

std::size_t pread_some(int fd, char* p, std::size_t n, std::uint64_t off) {
  for (;;) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "pread");
  }
}

}  // namespace

ReadStats read_fd(int fd, LineSplitter& splitter) {
  ReadStats st;
  std::vector<char> buf(kChunk);
  struct stat sb {};
  const bool regular = ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
  const auto size = regular ? static_cast<std::uint64_t>(sb.st_size) : 0;
  if (!regular || size <= kPartialThreshold) {
    for (;;) {
      const std::size_t n = read_some(fd, buf.data(), buf.size());
      if (n == 0) break;
      st.bytes_read += n;
      splitter.feed(std::string_view(buf.data(), n));
    }
    splitter.finish();
    return st;
  }
  // Huge file: head, then only count newlines in the middle, then the tail from a line start.
  st.partial = true;
  const std::uint64_t tail_start = size - kTailBytes;
  std::uint64_t off = 0;
  while (off < kHeadBytes) {
    const std::size_t n = pread_some(fd, buf.data(), static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, kHeadBytes - off)), off);
    if (n == 0) break;
    splitter.feed(std::string_view(buf.data(), n));
    off += n;
    st.bytes_read += n;
  }
  std::uint64_t newlines = splitter.lines();  // complete lines so far
  bool at_line_start = false;
  while (off < size) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, (off < tail_start ? tail_start : size) - off));
    const std::size_t n = pread_some(fd, buf.data(), want, off);
    if (n == 0) break;
    const char* p = buf.data();
    const char* end = p + n;
    if (off >= tail_start) {
      // First newline at or after tail_start: the tail begins after it.
      const void* nl = std::memchr(p, '\n', n);
      if (!nl) { off += n; st.skipped_bytes += n; continue; }
      ++newlines;
      const auto skip = static_cast<std::size_t>(static_cast<const char*>(nl) - p) + 1;
      st.skipped_bytes += skip;
      off += skip;
      at_line_start = true;
      break;
    }
    while (p < end) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      if (!nl) break;
      ++newlines;
      p = static_cast<const char*>(nl) + 1;
    }
    off += n;
    st.skipped_bytes += n;
  }
  splitter.restart_at(newlines + 1);
  if (!at_line_start) return st;
  while (off < size) {
    const std::size_t n = pread_some(fd, buf.data(), kChunk, off);
    if (n == 0) break;
    splitter.feed(std::string_view(buf.data(), n));
    off += n;
    st.bytes_read += n;
  }
  splitter.finish();
  return st;
}

}  // namespace gpualert::classify::detail
