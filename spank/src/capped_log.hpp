#pragma once
// Bounds what one task puts into the root-owned spool: the log keeps the first
// HEAD bytes as they arrive and only the last TAIL bytes after that, held in
// memory and written at the end behind a marker line saying what was left out.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "gpualert/runner/log_writer.hpp"

namespace gpualert::spank {

class CappedLog {
 public:
  CappedLog(runner::LogWriter& log, std::uint64_t head_bytes, std::uint64_t tail_bytes)
      : log_(log), head_left_(head_bytes), head_(head_bytes), tail_(tail_bytes) {}

  // The program's bytes: counted against the cap.
  void append(runner::StreamTag tag, std::string_view bytes);
  // Writes the marker (if anything was dropped) and the kept tail. If the
  // process dies before this, the log still holds the head, nothing after it.
  void finish();

  std::uint64_t dropped() const { return dropped_; }

 private:
  // A run of same-stream bytes; OFF skips what the ring has already let go.
  struct Piece {
    runner::StreamTag tag;
    std::string data;
    std::size_t off = 0;
  };

  runner::LogWriter& log_;
  std::uint64_t head_left_;
  std::uint64_t head_;
  std::uint64_t tail_;
  std::uint64_t tail_size_ = 0;
  std::uint64_t dropped_ = 0;
  std::deque<Piece> ring_;
};

}  // namespace gpualert::spank
