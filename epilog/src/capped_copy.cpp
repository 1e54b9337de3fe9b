#include "capped_copy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace gpualert::epilog {
namespace {

using Range = std::pair<std::uint64_t, std::uint64_t>;  // [begin, end) of file offsets holding data

// The file's data regions (SEEK_DATA/SEEK_HOLE); one region when the file
// system cannot say, so a plain file is still read whole.
std::vector<Range> data_ranges(int fd, std::uint64_t size) {
  std::vector<Range> out;
  off_t pos = 0;
  while (static_cast<std::uint64_t>(pos) < size) {
    const off_t data = ::lseek(fd, pos, SEEK_DATA);
    if (data < 0) break;  // ENXIO: no more data
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    if (hole < 0) hole = static_cast<off_t>(size);
    out.push_back({static_cast<std::uint64_t>(data), std::min<std::uint64_t>(static_cast<std::uint64_t>(hole), size)});
    pos = hole;
  }
  if (out.empty() && size > 0 && ::lseek(fd, 0, SEEK_DATA) < 0 && errno == EINVAL) out.push_back({0, size});
  return out;
}

bool write_all(int fd, const char* p, std::size_t n, CopyResult& r) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return r.ok = false;
    p += w;
    n -= static_cast<std::size_t>(w);
    r.written += static_cast<std::uint64_t>(w);
  }
  return true;
}

// Copies file offsets [from, to) of IN to OUT.
bool copy_range(int in, int out, std::uint64_t from, std::uint64_t to, char& last, CopyResult& r) {
  char buf[1 << 16];
  while (from < to) {
    const ssize_t n = ::pread(in, buf, static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, to - from)),
                              static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return r.ok = false;
    if (n == 0) break;  // the file shrank meanwhile
    if (!write_all(out, buf, static_cast<std::size_t>(n), r)) return false;
    last = buf[n - 1];
    from += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace

CopyResult copy_capped(int in, int out, std::uint64_t head, std::uint64_t tail) {
  CopyResult r;
  struct stat st {};
  if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    r.ok = false;
    return r;
  }
  const auto ranges = data_ranges(in, static_cast<std::uint64_t>(st.st_size));
  std::uint64_t data = 0;
  for (const auto& [b, e] : ranges) data += e - b;
  r.holes = static_cast<std::uint64_t>(st.st_size) - data;
  // Data offsets (counted over data bytes only) that are kept: [0, head) and [data - tail, data).
  const std::uint64_t keep_tail_from = data > head + tail ? data - tail : head;
  r.skipped = data > head + tail ? data - head - tail : 0;
  char last = '\n';
  std::uint64_t seen = 0;  // data bytes before the current range
  bool noted = false;
  for (const auto& [b, e] : ranges) {
    const std::uint64_t len = e - b;
    // The part of this range inside the head.
    if (seen < head) {
      const std::uint64_t n = std::min(len, head - seen);
      if (!copy_range(in, out, b, b + n, last, r)) return r;
    }
    // The part inside the tail.
    const std::uint64_t tail_from = std::max({seen, keep_tail_from, std::min(seen + len, head)});
    if (tail_from < seen + len) {
      if (r.skipped > 0 && !noted) {
        const std::string note = std::string(last == '\n' ? "" : "\n") + "[gpualert] " + std::to_string(r.skipped) +
                                 " bytes of this task's output are not shown (the first " + std::to_string(head) +
                                 " and the last " + std::to_string(tail) + " are)\n";
        if (!write_all(out, note.data(), note.size(), r)) return r;
        noted = true;
      }
      if (!copy_range(in, out, b + (tail_from - seen), e, last, r)) return r;
    }
    seen += len;
  }
  std::string end = last == '\n' ? "" : "\n";
  if (r.holes > 0)
    end += "[gpualert] this log holds " + std::to_string(r.holes) +
           " bytes of holes (the file was extended without being written); they were skipped\n";
  if (!end.empty()) write_all(out, end.data(), end.size(), r);
  return r;
}

}  // namespace gpualert::epilog
