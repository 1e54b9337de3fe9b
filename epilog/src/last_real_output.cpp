#include "last_real_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include "gpualert/common/stream_index.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::epilog {
namespace {

constexpr std::size_t kIndexTail = 64 << 10;  // the index's newest segments are all that matter
constexpr std::size_t kNoticeMax = 512;       // a notice segment is short

std::string read_range(int fd, std::uint64_t offset, std::size_t n) {
  std::string buf(n, '\0');
  const ssize_t got = ::pread(fd, buf.data(), n, static_cast<off_t>(offset));
  buf.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return buf;
}

}  // namespace

bool only_kill_notices(std::string_view text) {
  // bash: "Terminated", "Killed", or "<script>: line 4: 23345 Terminated   sleep 900";
  // dash/sh the same words; a hang-up; slurmstepd's "*** JOB 9 ON n1 CANCELLED AT ... ***".
  static const std::regex notice(
      R"(\s*(.*: line \d+: +\d+ +(Terminated|Killed|Hangup)(\s.*)?|(Terminated|Killed|Hangup)( +\(core dumped\))?|)"
      R"((slurmstepd: error: )?\*\*\* (JOB|STEP) .* \*\*\*)\s*)");
  bool any = false;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line(text.substr(start, nl - start));
    start = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!std::regex_match(line, notice)) return false;
    any = true;
  }
  return any;
}

std::optional<std::chrono::system_clock::time_point> last_output_before_kill_notices(int dirfd, const char* log,
                                                                                     const char* streams) {
  UniqueFd lf(::openat(dirfd, log, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  UniqueFd sf(::openat(dirfd, streams, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat ls {}, ss {};
  if (!lf.valid() || !sf.valid() || ::fstat(lf.get(), &ls) != 0 || ::fstat(sf.get(), &ss) != 0 || !S_ISREG(ls.st_mode) ||
      !S_ISREG(ss.st_mode))
    return std::nullopt;
  const auto size = static_cast<std::uint64_t>(ss.st_size);
  std::string tail = read_range(sf.get(), size > kIndexTail ? size - kIndexTail : 0, kIndexTail);
  if (size > kIndexTail) tail.erase(0, tail.find('\n') + 1);  // a cut first line
  std::vector<StreamSegment> segs;
  std::size_t start = 0;
  while (start < tail.size()) {
    auto nl = tail.find('\n', start);
    if (nl == std::string::npos) nl = tail.size();
    const auto seg = parse_stream_segment(std::string_view(tail).substr(start, nl - start));
    if (seg && (seg->tag == 'o' || seg->tag == 'e') && seg->ms >= 0) segs.push_back(*seg);
    start = nl + 1;
  }
  if (segs.size() < 2) return std::nullopt;
  const long long last_ms = segs.back().ms;
  std::size_t i = segs.size();
  while (i > 0) {
    const auto& s = segs[i - 1];
    if (s.length > kNoticeMax || s.offset + s.length > static_cast<std::uint64_t>(ls.st_size)) break;
    if (!only_kill_notices(read_range(lf.get(), s.offset, static_cast<std::size_t>(s.length)))) break;
    --i;
  }
  if (i == segs.size() || i == 0) return std::nullopt;  // no trailing notice, or nothing but notices
  // The index file was last written with its last segment: count back from its mtime.
  const auto index_time = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::seconds(ss.st_mtim.tv_sec) + std::chrono::nanoseconds(ss.st_mtim.tv_nsec)));
  return index_time - std::chrono::milliseconds(last_ms - segs[i - 1].ms);
}

}  // namespace gpualert::epilog
