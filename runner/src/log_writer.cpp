#include "gpualert/runner/log_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpualert::runner {
namespace {
// How often the log is pushed to disk while the child runs: a node crash
// then loses at most this much, and a fast writer is never held up by fsync.
constexpr auto kSyncEvery = std::chrono::seconds(5);
// The middle is released in steps of at least this much (one fallocate per step).
constexpr std::uint64_t kReleaseStep = 64ull << 20;
constexpr std::uint64_t kBlock = 4096;  // holes are whole blocks
}  // namespace

LogWriter::LogWriter(int log_fd, int streams_fd)
    : log_fd_(log_fd),
      streams_fd_(streams_fd),
      t0_(std::chrono::steady_clock::now()),
      last_sync_(t0_) {}

LogWriter::~LogWriter() {
  if (log_fd_ >= 0) ::close(log_fd_);
  if (streams_fd_ >= 0) ::close(streams_fd_);
}

void LogWriter::write_all(int fd, std::string_view data) {
  while (!data.empty() && error_.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("log write failed: ") + std::strerror(errno);
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void LogWriter::start_segment(StreamTag tag) {
  const char t = static_cast<char>(tag);
  const long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0_).count();
  if (t != seg_tag_ || ms - seg_ms_ >= 1000) {
    close_segment();
    seg_tag_ = t;
    seg_start_ = offset_;
    seg_ms_ = ms;
  }
}

void LogWriter::append(StreamTag tag, std::string_view bytes) {
  if (log_fd_ < 0 || !error_.empty() || bytes.empty()) return;
  start_segment(tag);
  write_all(log_fd_, bytes);
  if (!error_.empty()) return;
  offset_ += bytes.size();
  if (index_.size() > 64 * 1024) flush_index();
  maybe_sync();
  maybe_release();
}

void LogWriter::account(StreamTag tag, std::uint64_t n) {
  if (log_fd_ < 0 || !error_.empty() || n == 0) return;
  start_segment(tag);
  offset_ += n;
  if (index_.size() > 64 * 1024) flush_index();
  maybe_sync();
  maybe_release();
}

void LogWriter::maybe_release() {
  if (keep_tail_ == 0 && keep_head_ == 0) return;
  if (offset_ < keep_head_ + keep_tail_ + kReleaseStep) return;
  const std::uint64_t from = released_to_ ? released_to_ : (keep_head_ + kBlock - 1) / kBlock * kBlock;
  const std::uint64_t to = (offset_ - keep_tail_) / kBlock * kBlock;
  if (to < from + kReleaseStep) return;
  if (::fallocate(log_fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                  static_cast<off_t>(to - from)) != 0) {
    note_ = std::string("the log could not release its middle (") + std::strerror(errno) +
            "): it keeps everything, past log_max";
    keep_head_ = keep_tail_ = 0;
    return;
  }
  if (released_to_ == 0) released_from_ = from;
  released_to_ = to;
}

// One index line per run of bytes from one stream within one second:
// "<tag> <offset> <length> <ms since start>".
void LogWriter::close_segment() {
  if (seg_tag_ == 0 || offset_ == seg_start_) return;
  index_ += seg_tag_;
  index_ += ' ';
  index_ += std::to_string(seg_start_);
  index_ += ' ';
  index_ += std::to_string(offset_ - seg_start_);
  index_ += ' ';
  index_ += std::to_string(seg_ms_);
  index_ += '\n';
}

void LogWriter::flush_index() {
  if (streams_fd_ < 0) {
    index_.clear();
    return;
  }
  write_all(streams_fd_, index_);
  index_.clear();
}

void LogWriter::maybe_sync() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_sync_ < kSyncEvery) return;
  last_sync_ = now;
  // Start writeback without waiting for it: a fast writer must never stall on
  // the disk here (an fdatasync of a gigabyte of dirty pages would). finish()
  // does the real fsync once the child has ended.
  ::sync_file_range(log_fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
}

void LogWriter::finish() {
  close_segment();
  seg_tag_ = 0;
  flush_index();
  if (log_fd_ >= 0 && ::fsync(log_fd_) != 0 && error_.empty())
    error_ = std::string("log fsync failed: ") + std::strerror(errno);
  if (streams_fd_ >= 0) ::fsync(streams_fd_);
}

}  // namespace gpualert::runner
