// Streams a file through zlib's gzip format into a 0600 temporary file.
#include "gzip_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "gpualert/common/durable_file.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

constexpr std::size_t kChunk = 256 * 1024;

bool write_all(int fd, const unsigned char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// deflateEnd on every exit path.
struct Deflater {
  z_stream zs{};
  bool live = false;
  ~Deflater() {
    if (live) deflateEnd(&zs);
  }
};

// A staged copy is deleted by its plan; one older than this was left by a
// process killed first (a run's post-run deadline).
void remove_stale_staging(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto cutoff = std::filesystem::file_time_type::clock::now() - std::chrono::minutes(10);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gpualert-attach-", 0) != 0) continue;
    std::error_code ec2;
    if (e.is_regular_file(ec2) && !e.is_symlink(ec2) && e.last_write_time(ec2) < cutoff && !ec2)
      ::unlink(e.path().c_str());
  }
}

}  // namespace

GzipResult gzip_snapshot(int fd, std::uint64_t in_size, const std::filesystem::path& staging_dir,
                         std::uint64_t max_out, std::chrono::steady_clock::time_point give_up) {
  GzipResult res;
  try {
    make_dirs(staging_dir, 0700);
  } catch (const std::exception& e) {
    res.error = e.what();
    return res;
  }
  // Unnamed first: it vanishes with its last descriptor, whatever kills the process.
  UniqueFd out(::open(staging_dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  std::filesystem::path out_path;
  const bool unnamed = out.valid() && ::access("/proc/self/fd", X_OK) == 0;
  if (unnamed) {
    out_path = "/proc/self/fd/" + std::to_string(out.get());
  } else {
    out.reset();
    remove_stale_staging(staging_dir);
    std::string tmpl = (staging_dir / "gpualert-attach-XXXXXX.gz").string();
    out = UniqueFd(::mkostemps(tmpl.data(), 3, O_CLOEXEC));  // mode 0600
    if (!out.valid()) {
      res.error = "cannot create a file in " + staging_dir.string() + ": " + std::strerror(errno);
      return res;
    }
    out_path = tmpl;
  }
  auto drop = [&] {
    out.reset();
    if (!unnamed) ::unlink(out_path.c_str());
  };
  auto fail = [&](std::string why) {
    drop();
    res.error = std::move(why);
    return res;
  };

  Deflater d;
  // 15 + 16: a gzip wrapper, so the reader can open it with any gunzip.
  if (deflateInit2(&d.zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return fail("zlib initialisation failed");
  }
  d.live = true;
  std::vector<unsigned char> in(kChunk);
  std::vector<unsigned char> buf(kChunk);
  std::uint64_t left = in_size;
  std::uint64_t written = 0;
  off_t offset = 0;
  bool eof = false;
  while (!eof) {
    if (std::chrono::steady_clock::now() >= give_up) return fail("not compressed within the time allowed");
    // pread: the descriptor's offset is shared with whoever else holds it.
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, kChunk));
    ssize_t n = 0;
    if (want > 0) {
      do n = ::pread(fd, in.data(), want, offset);
      while (n < 0 && errno == EINTR);
      if (n < 0) return fail(std::string("read failed: ") + std::strerror(errno));
    }
    offset += n;
    left -= static_cast<std::uint64_t>(n);
    eof = n == 0 || left == 0;  // a file that shrank simply ends early
    d.zs.next_in = in.data();
    d.zs.avail_in = static_cast<uInt>(n);
    do {
      d.zs.next_out = buf.data();
      d.zs.avail_out = static_cast<uInt>(buf.size());
      const int rc = deflate(&d.zs, eof ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return fail("zlib deflate failed");
      const std::size_t have = buf.size() - d.zs.avail_out;
      written += have;
      if (written > max_out) {
        drop();
        res.too_large = true;
        return res;
      }
      if (!write_all(out.get(), buf.data(), have)) {
        return fail("cannot write " + out_path.string() + ": " + std::strerror(errno));
      }
    } while (d.zs.avail_out == 0);
  }
  if (unnamed) {
    res.fd = out.release();
  } else if (out.close_checked() != 0) {
    ::unlink(out_path.c_str());
    res.error = "cannot write " + out_path.string() + ": " + std::strerror(errno);
    return res;
  }
  res.ok = true;
  res.path = out_path;
  res.size = written;
  return res;
}

}  // namespace gpualert::notify
