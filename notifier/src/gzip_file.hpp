#pragma once
// gzip of a file snapshot into a staging directory (zlib), with an output cap.
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <string>

namespace gpualert::notify {

struct GzipResult {
  bool ok = false;
  bool too_large = false;        // output passed MAX_OUT: given up early
  std::filesystem::path path;    // the .gz when ok ("/proc/self/fd/N" for an unnamed one)
  int fd = -1;                   // an unnamed .gz stays open here: the caller closes it when done
  std::uint64_t size = 0;        // its size when ok
  std::string error;             // when !ok && !too_large
};

// Compresses the first IN_SIZE bytes of FD into a new file in STAGING_DIR.
// Stops (and deletes its output) as soon as the output exceeds MAX_OUT, so a
// huge file that cannot fit costs little work, or when GIVE_UP passes (error
// says so). The output is an unnamed file (O_TMPFILE), read through /proc/self/fd, so
// nothing is left behind even when the process is killed; where the file system cannot
// make one, a named file, and staged files older than ten minutes (left by a process
// killed before it could delete them) are removed first.
GzipResult gzip_snapshot(int fd, std::uint64_t in_size, const std::filesystem::path& staging_dir,
                         std::uint64_t max_out,
                         std::chrono::steady_clock::time_point give_up = std::chrono::steady_clock::time_point::max());

}  // namespace gpualert::notify
