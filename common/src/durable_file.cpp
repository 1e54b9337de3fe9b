#include "gpualert/common/durable_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace gpualert {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p) {
  throw std::system_error(errno, std::generic_category(), what + " " + p.string());
}

// RAII for a raw descriptor so error paths cannot leak it.
struct Fd {
  int fd = -1;
  ~Fd() { if (fd >= 0) ::close(fd); }
};

}  // namespace

void make_dirs(const std::filesystem::path& dir, unsigned mode) {
  if (dir.empty()) return;
  struct stat existing {};
  if (::stat(dir.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) return;  // the usual case: one call
  std::filesystem::path partial;
  for (const auto& part : dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), static_cast<mode_t>(mode)) == 0) continue;
    if (errno != EEXIST) fail("cannot create directory", partial);
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) fail("cannot stat", dir);
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    fail("not a directory:", dir);
  }
}

void sync_dir(const std::filesystem::path& dir) {
  Fd d{::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) fail("cannot open directory", dir);
  if (::fsync(d.fd) != 0 && errno != EINVAL) fail("cannot fsync directory", dir);
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content, unsigned mode) {
  const auto tmp = std::filesystem::path(path.string() + ".tmp." + std::to_string(::getpid()));
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, static_cast<mode_t>(mode))};
    if (f.fd < 0) fail("cannot create", tmp);
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      const ssize_t n = ::write(f.fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int saved = errno;
        ::unlink(tmp.c_str());
        errno = saved;
        fail("cannot write", tmp);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    if (::fsync(f.fd) != 0) {
      const int saved = errno;
      ::unlink(tmp.c_str());
      errno = saved;
      fail("cannot fsync", tmp);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail("cannot rename into", path);
  }
  sync_dir(path.parent_path());
}

std::string read_file(const std::filesystem::path& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) fail("cannot open", path);
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace gpualert
