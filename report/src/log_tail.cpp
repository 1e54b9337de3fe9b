// Reads only the end of the log: a 10 GB log costs the same as a small one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "gpualert/common/text.hpp"
#include "gpualert/report/message_builder.hpp"

namespace gpualert::report {

std::vector<TailLine> log_tail(const std::filesystem::path& log, int n, std::uint64_t total_lines) {
  std::vector<TailLine> out;
  if (n <= 0) return out;
  const int fd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st {};
  ::fstat(fd, &st);
  const off_t want = std::min<off_t>(st.st_size, static_cast<off_t>(n) * 1024 + 4096);
  std::string buf(static_cast<std::size_t>(want), '\0');
  const ssize_t got = ::pread(fd, buf.data(), buf.size(), st.st_size - want);
  ::close(fd);
  if (got <= 0) return out;
  buf.resize(static_cast<std::size_t>(got));
  const bool ends_with_newline = !buf.empty() && buf.back() == '\n';
  if (ends_with_newline) buf.pop_back();
  // Split from the end; the first piece may be a partial line when we did not read the whole file.
  std::vector<std::string> lines;
  std::size_t end = buf.size();
  while (static_cast<int>(lines.size()) < n) {
    const auto nl = buf.rfind('\n', end == 0 ? 0 : end - 1);
    if (nl == std::string::npos || end == 0) {
      if (want == st.st_size || lines.empty()) lines.push_back(buf.substr(0, end));
      break;
    }
    lines.push_back(buf.substr(nl + 1, end - nl - 1));
    end = nl;
  }
  std::uint64_t number = total_lines;
  for (auto it = lines.begin(); it != lines.end(); ++it) {
    TailLine t;
    t.number = number;
    std::string text = *it;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.size() > 400) text = text.substr(0, 400) + " [...]";
    t.text = printable_utf8(text);
    out.push_back(t);
    if (number > 0) --number;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gpualert::report
