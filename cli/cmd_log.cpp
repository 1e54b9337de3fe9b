// `gpualert log RUN [--stream err]`: the captured output, one stream recovered
// from the byte ranges recorded in output.streams.
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "gpualert/common/stream_index.hpp"

namespace gpualert::cli {

int log_command(const LogOptions& o) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::is_directory(o.run) ? o.run : o.run.parent_path();
  const fs::path log = dir / "output.log";
  const int fd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::cerr << "gpualert log: cannot open " << log.string() << "\n";
    return 1;
  }
  const char want = o.stream == "out" ? 'o' : o.stream == "err" ? 'e' : o.stream == "gpualert" ? 'g' : 0;
  std::ifstream idx(dir / "output.streams");
  if (want != 0 && !idx) {
    std::cerr << "gpualert log: no output.streams in " << dir.string() << "; cannot separate streams\n";
    ::close(fd);
    return 1;
  }
  std::string buf(1 << 16, '\0');
  auto copy = [&](off_t off, std::uint64_t len) {
    while (len > 0) {
      const ssize_t n = ::pread(fd, buf.data(), std::min<std::uint64_t>(len, buf.size()), off);
      if (n <= 0) return false;
      std::cout.write(buf.data(), n);
      off += n;
      len -= static_cast<std::uint64_t>(n);
    }
    return true;
  };
  int rc = 0;
  if (want == 0) {
    off_t off = 0;
    ssize_t n;
    while ((n = ::pread(fd, buf.data(), buf.size(), off)) > 0) {
      std::cout.write(buf.data(), n);
      off += n;
    }
  } else {
    std::string line;
    while (std::getline(idx, line)) {
      const auto seg = parse_stream_segment(line);
      if (!seg) {
        std::cerr << "gpualert log: malformed line in output.streams: " << line.substr(0, 80) << "\n";
        rc = 1;
        continue;
      }
      if (seg->tag == want && !copy(static_cast<off_t>(seg->offset), seg->length)) rc = 1;
    }
  }
  ::close(fd);
  std::cout.flush();
  return rc;
}

}  // namespace gpualert::cli
