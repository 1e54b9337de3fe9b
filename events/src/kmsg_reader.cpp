// The kernel's own ring buffer (/dev/kmsg): where NVRM Xid lines and OOM-killer
// records land first, and the only kernel log on a node without journald or a
// syslog daemon. Records are "prio,seq,usec_since_boot,flags;message" followed by
// " KEY=value" continuation lines (Documentation/ABI/testing/dev-kmsg).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "gpualert/events/kernel_events.hpp"
#include "text_lines.hpp"

namespace gpualert::events {
namespace {

constexpr std::size_t kMaxBytes = 64u << 20;  // bound on what one read of the buffer takes

std::int64_t clock_us(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

}  // namespace

Clock::time_point kmsg_zero() {
  // printk stamps count from boot on the monotonic clock: realtime = now - monotonic + stamp.
  return Clock::time_point(std::chrono::microseconds(clock_us(CLOCK_REALTIME) - clock_us(CLOCK_MONOTONIC)));
}

namespace {

// One record's first line "prio,seq,usec,flags;message" (nullopt: not a relevant event).
std::optional<Event> parse_kmsg_line(std::string_view line, std::string_view source, Clock::time_point zero) {
  if (line.empty() || line.front() == ' ') return std::nullopt;  // a continuation (dictionary) line
  const auto semi = line.find(';');
  if (semi == std::string_view::npos) return std::nullopt;
  const std::string_view head = line.substr(0, semi);
  const auto c1 = head.find(',');
  const auto c2 = c1 == std::string_view::npos ? c1 : head.find(',', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  auto e = parse_event_text(line.substr(semi + 1));
  if (!e) return std::nullopt;
  const std::string usec(head.substr(c2 + 1, head.find(',', c2 + 1) - c2 - 1));
  char* end = nullptr;
  const long long us = std::strtoll(usec.c_str(), &end, 10);
  if (end != usec.c_str()) e->time = zero + std::chrono::microseconds(us);
  const std::string seq(head.substr(c1 + 1, c2 - c1 - 1));
  char* seq_end = nullptr;
  const unsigned long long n = std::strtoull(seq.c_str(), &seq_end, 10);
  if (seq_end != seq.c_str() && *seq_end == '\0') e->seq = n;
  e->source = std::string(source);
  return e;
}

}  // namespace

std::vector<Event> parse_kmsg(std::string_view text, std::string_view source, Clock::time_point zero) {
  std::vector<Event> out;
  detail::for_each_line(text, [&](std::string_view line) {
    if (auto e = parse_kmsg_line(line, source, zero)) out.push_back(std::move(*e));
  });
  return out;
}

std::vector<Event> parse_kmsg_with(std::string_view text, std::string_view needle, std::string_view source,
                                   Clock::time_point zero) {
  std::vector<Event> out;
  std::size_t pos = 0;
  while (!needle.empty() && (pos = text.find(needle, pos)) != std::string_view::npos) {
    const auto nl = text.rfind('\n', pos);
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (auto e = parse_kmsg_line(line, source, zero)) out.push_back(std::move(*e));
    pos = end;
  }
  return out;
}

std::optional<std::uint64_t> kmsg_last_seq(std::string_view text) {
  // From the end: the last record's first line (continuation lines start with a space).
  std::size_t end = text.size();
  while (end > 0) {
    const auto nl = end >= 2 ? text.rfind('\n', end - 2) : std::string_view::npos;
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    const std::string_view line = text.substr(begin, end - begin);
    end = begin;
    if (line.empty() || line.front() == ' ') continue;
    const auto semi = line.find(';');
    const auto c1 = line.find(',');
    if (semi == std::string_view::npos || c1 == std::string_view::npos || c1 > semi) continue;
    const auto c2 = line.find(',', c1 + 1);
    if (c2 == std::string_view::npos || c2 > semi) continue;
    const std::string seq(line.substr(c1 + 1, c2 - c1 - 1));
    char* stop = nullptr;
    const unsigned long long n = std::strtoull(seq.c_str(), &stop, 10);
    if (stop != seq.c_str() && *stop == '\0') return n;
  }
  return std::nullopt;
}

std::optional<std::string> read_kmsg_text(const std::filesystem::path& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string all;
  char buf[16384];  // larger than any one record (the kernel caps a record near 8 KiB)
  while (all.size() < kMaxBytes) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      all.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || errno == EAGAIN) break;  // end of the buffer (or of a saved file)
    if (errno == EINTR || errno == EPIPE) continue;  // EPIPE: records were overwritten while reading; go on
    error = std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  ::close(fd);
  return all;
}

}  // namespace gpualert::events
