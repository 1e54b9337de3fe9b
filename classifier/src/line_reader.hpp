#pragma once
// Splits a byte stream into blocks of whole numbered lines with bounded memory. Lines
// are handed on in the reader's own buffer, a block at a time; only a line cut by a
// buffer boundary is copied, and one longer than the cap keeps only its head (the rest
// is skipped but the line is counted).
#include <chrono>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <string_view>

namespace gpualert::classify::detail {

inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

class LineSplitter {
 public:
  // LINES: whole lines, each ending in '\n'; the first is line FIRST. Returns how many.
  using Sink = std::function<std::uint64_t(std::string_view lines, std::uint64_t first)>;
  explicit LineSplitter(Sink sink) : sink_(std::move(sink)) {}

  void feed(std::string_view chunk);
  void finish();  // emits a last line without a newline
  // Drops a partial line and makes the next line number NEXT (used to skip a middle part).
  void restart_at(std::uint64_t next);

  std::uint64_t lines() const { return next_ - 1; }
  std::uint64_t long_lines() const { return long_lines_; }

 private:
  void append_capped(std::string_view piece);
  void emit_carry();
  Sink sink_;
  std::string buf_;  // a line begun in an earlier chunk
  bool carrying_ = false;
  bool overlong_ = false;
  std::uint64_t next_ = 1;
  std::uint64_t long_lines_ = 0;
};

// Reading limits: above kPartialThreshold bytes a regular file is read as its head and
// its tail only (the middle is only scanned for newlines, to keep line numbers right).
// With a DEADLINE the reader also keeps to time: it reads from the start for part of
// the time, then jumps to the part of the end it can still read (a pipe is read until
// the deadline), and says what it left out.
struct ReadStats {
  std::uint64_t bytes_read = 0;  // bytes classified
  bool partial = false;
  std::uint64_t skipped_bytes = 0;
  std::string gap;  // "" or what was not read and why, for the verdict
};

inline constexpr std::uint64_t kPartialThreshold = 1ull << 30;
inline constexpr std::uint64_t kHeadBytes = 128ull << 20;
inline constexpr std::uint64_t kTailBytes = 384ull << 20;

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// Reads FD to EOF (or head + tail for a huge regular file, or what DEADLINE allows)
// into SPLITTER. Throws std::system_error on a read error.
ReadStats read_fd(int fd, LineSplitter& splitter, Deadline deadline = std::nullopt);

}  // namespace gpualert::classify::detail
