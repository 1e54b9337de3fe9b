// Streaming input: fixed-size buffers, lines capped, any bytes accepted.
#include "line_reader.hpp"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

namespace gpualert::classify::detail {

void LineSplitter::append_capped(std::string_view piece) {
  if (overlong_) return;
  const std::size_t room = kMaxLineBytes - buf_.size();
  if (piece.size() > room) {
    buf_.append(piece.substr(0, room));
    overlong_ = true;
    ++long_lines_;
  } else {
    buf_.append(piece);
  }
}

void LineSplitter::emit_carry() {
  buf_.push_back('\n');
  next_ += sink_(buf_, next_);
  buf_.clear();
  overlong_ = false;
  carrying_ = false;
}

void LineSplitter::feed(std::string_view chunk) {
  if (carrying_) {
    const auto nl = chunk.find('\n');
    append_capped(chunk.substr(0, nl));
    if (nl == std::string_view::npos) return;
    emit_carry();
    chunk.remove_prefix(nl + 1);
  }
  if (const auto last = chunk.rfind('\n'); last != std::string_view::npos) {
    next_ += sink_(chunk.substr(0, last + 1), next_);
    chunk.remove_prefix(last + 1);
  }
  if (!chunk.empty()) {
    carrying_ = true;
    append_capped(chunk);
  }
}

void LineSplitter::finish() {
  if (carrying_) emit_carry();
}

void LineSplitter::restart_at(std::uint64_t next) {
  buf_.clear();
  carrying_ = false;
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
    if (errno == EAGAIN) {  // a non-blocking descriptor: wait for it
      pollfd pf{fd, POLLIN, 0};
      ::poll(&pf, 1, -1);
      continue;
    }
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

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1 << 19)) >> 20) + " MiB"; }

// Reads sequentially from OFF until UNTIL, EOF or STOP_AT.
// Returns the new offset.
std::uint64_t read_span(int fd, std::vector<char>& buf, std::uint64_t off, std::uint64_t until, LineSplitter& splitter,
                        ReadStats& st, Clock::time_point stop_at) {
  while (off < until) {
    if (Clock::now() >= stop_at) break;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), until - off));
    const std::size_t n = pread_some(fd, buf.data(), want, off);
    if (n == 0) break;
    splitter.feed(std::string_view(buf.data(), n));
    off += n;
    st.bytes_read += n;
  }
  return off;
}

// Counts newlines from OFF to UNTIL (or STOP_AT). Returns the offset reached.
std::uint64_t count_newlines(int fd, std::vector<char>& buf, std::uint64_t off, std::uint64_t until,
                             std::uint64_t& newlines, Clock::time_point stop_at) {
  while (off < until) {
    if (Clock::now() >= stop_at) break;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), until - off));
    const std::size_t n = pread_some(fd, buf.data(), want, off);
    if (n == 0) break;
    for (const char* p = buf.data(); (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(
                                          buf.data() + n - p)))) != nullptr;
         ++p)
      ++newlines;
    off += n;
  }
  return off;
}

// The first hole of at least kMinHole bytes in a regular file of SIZE bytes: the middle
// `gpualert run` released from a log that outgrew log_max, or a sparse file. It holds no
// output and is skipped, never read as zeros. {SIZE, SIZE} when there is none.
struct Span {
  std::uint64_t start, end;
};
Span first_hole(int fd, std::uint64_t size) {
  constexpr std::uint64_t kMinHole = 1 << 20;
  std::uint64_t at = 0;
  for (int tries = 0; tries < 64 && at < size; ++tries) {
    const off_t h = ::lseek(fd, static_cast<off_t>(at), SEEK_HOLE);
    if (h < 0 || static_cast<std::uint64_t>(h) >= size) break;
    const off_t d = ::lseek(fd, h, SEEK_DATA);
    const std::uint64_t end = d < 0 ? size : static_cast<std::uint64_t>(d);  // ENXIO: a hole to the end
    if (end - static_cast<std::uint64_t>(h) >= kMinHole) return {static_cast<std::uint64_t>(h), end};
    at = end;
  }
  return {size, size};
}

}  // namespace

ReadStats read_fd(int fd, LineSplitter& splitter, Deadline deadline) {
  ReadStats st;
  std::vector<char> buf(kChunk);
  struct stat sb {};
  const bool regular = ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
  const auto size = regular ? static_cast<std::uint64_t>(sb.st_size) : 0;
  const auto t0 = Clock::now();

  if (!regular) {  // a pipe cannot be skipped: read until EOF or the deadline
    for (;;) {
      if (deadline) {  // wait for data only as long as the deadline allows
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
        pollfd pf{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&pf, 1, static_cast<int>(std::min<long long>(left, 1 << 30))) == 0) {
          st.partial = true;
          st.gap = "reading stopped after " + mib(st.bytes_read) + ": the rest did not arrive within the time allowed";
          break;
        }
      }
      const std::size_t n = read_some(fd, buf.data(), buf.size());
      if (n == 0) break;
      st.bytes_read += n;
      splitter.feed(std::string_view(buf.data(), n));
    }
    splitter.finish();
    return st;
  }

  // The head: from the start, up to kHeadBytes of a huge file, and (with a deadline)
  // for at most 40 % of the time, so that the end, where a run's error usually is,
  // still gets read.
  const bool huge = size > kPartialThreshold;
  const Span hole = first_hole(fd, size);
  constexpr auto kNever = Clock::time_point::max();
  const Clock::time_point end_by = deadline.value_or(kNever);
  const Clock::time_point head_stop = deadline ? t0 + (end_by - t0) * 2 / 5 : kNever;
  // The first and last MiB are always read, however little time is left.
  constexpr std::uint64_t kAlways = 1 << 20;
  std::uint64_t off = read_span(fd, buf, 0, std::min({size, kAlways, hole.start}), splitter, st, kNever);
  off = read_span(fd, buf, off, std::min(huge ? kHeadBytes : size, hole.start), splitter, st, head_stop);
  if (off >= size) {
    splitter.finish();
    return st;
  }

  // How much of the end to read: kTailBytes of a huge file; with a deadline, what the
  // rate so far allows in 60 % of the time left (never less than 1 MiB).
  std::uint64_t tail = huge ? kTailBytes : size - off;
  std::string why = huge ? "the log is larger than " + mib(kPartialThreshold) : "";
  if (deadline) {
    const auto now = Clock::now();
    const double rate = static_cast<double>(st.bytes_read) / std::max(1e-3, seconds_between(t0, now));
    const double left = std::max(0.0, seconds_between(now, end_by));
    const auto affordable = std::max<std::uint64_t>(kAlways, static_cast<std::uint64_t>(rate * left * 0.6));
    if (affordable < tail) {
      tail = affordable;
      why = "it could not be read within the time allowed";  // cuts deeper than the size did
    }
  }
  if (hole.start < size)
    why += std::string(why.empty() ? "" : "; ") + mib(hole.end - hole.start) +
           " of it are not in the log file (released or never written: `gpualert run` keeps the first quarter and "
           "the last three quarters of a log larger than its log_max)";
  // The tail never starts inside the hole: there is nothing there to read.
  const std::uint64_t tail_start =
      std::max(size - std::min(tail, size - off), hole.start < size ? std::max(hole.end, off) : off);
  // The middle: only its newlines are counted (fast), so line numbers stay exact; the
  // lines of a hole, and of what even counting had no time for, are estimated from the
  // bytes per line seen so far.
  std::uint64_t newlines = splitter.lines();
  const Clock::time_point count_stop = deadline ? end_by - (end_by - Clock::now()) / 2 : kNever;
  const std::uint64_t before_hole = std::min(tail_start, hole.start);
  std::uint64_t counted_to = count_newlines(fd, buf, off, before_hole, newlines, count_stop);
  std::uint64_t unknown = 0;  // bytes whose newlines were not counted
  if (counted_to >= before_hole && before_hole < tail_start) {
    const std::uint64_t after_hole = std::min(hole.end, tail_start);
    unknown = after_hole - before_hole;
    counted_to = count_newlines(fd, buf, after_hole, tail_start, newlines, count_stop);
  }
  unknown += tail_start - counted_to;
  const bool estimated = unknown > 0;
  if (estimated) {
    // Bytes per line so far (100 when nothing was seen).
    const double per_line =
        newlines ? static_cast<double>(tail_start - unknown) / static_cast<double>(newlines) : 100.0;
    newlines += static_cast<std::uint64_t>(static_cast<double>(unknown) / std::max(1.0, per_line));
  }
  // The tail starts after the first newline at or after TAIL_START.
  std::uint64_t at = tail_start;
  bool at_line_start = tail_start == 0;
  while (at < size && !at_line_start) {
    const std::size_t n = pread_some(fd, buf.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - at)), at);
    if (n == 0) break;
    const void* nl = std::memchr(buf.data(), '\n', n);
    if (!nl) {
      at += n;
      continue;
    }
    ++newlines;
    at += static_cast<std::uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
    at_line_start = true;
  }
  st.partial = true;
  st.skipped_bytes = at - off;
  const std::uint64_t first_line = splitter.lines() + 1;
  splitter.restart_at(newlines + 1);
  st.gap = "bytes " + std::to_string(off) + " to " + std::to_string(at) + " (" + mib(at - off) + ", lines " +
           std::to_string(first_line) + " to " + (estimated ? "about " : "") + std::to_string(newlines) +
           ") were not read: " + why;
  if (estimated) st.gap += "; line numbers after the gap are estimates";
  if (at_line_start) {
    std::uint64_t end = read_span(fd, buf, at, std::min(size, at + kAlways), splitter, st, kNever);
    end = read_span(fd, buf, end, size, splitter, st, end_by);
    if (end < size) st.gap += "; the last " + mib(size - end) + " were not read either (out of time)";
  }
  splitter.finish();
  return st;
}

}  // namespace gpualert::classify::detail
