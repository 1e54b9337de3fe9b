#pragma once
// Bounds what one task puts into the root-owned spool: the log keeps the first
// HEAD bytes as they arrive and only the last TAIL bytes after that, held in
// memory and written at the end behind a marker line saying what was left out.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "gpualert/runner/log_writer.hpp"

namespace gpualert::spank {

// The spool is shared by every job on the node: past its first GUARANTEED
// bytes (of head, and of tail), a log stops growing while the spool's free
// space is below FLOOR, so one job's flood leaves room for the others' logs
// and messages. FREE_BYTES is asked at most once per CHECK_EVERY bytes.
struct SpaceGuard {
  std::function<std::uint64_t()> free_bytes;  // empty: no guard
  std::uint64_t floor = 0;
  std::uint64_t guaranteed = 256 << 10;
  std::uint64_t check_every = 1 << 20;
};

class CappedLog {
 public:
  CappedLog(runner::LogWriter& log, std::uint64_t head_bytes, std::uint64_t tail_bytes, SpaceGuard guard = {})
      : log_(log), head_left_(head_bytes), head_(head_bytes), tail_(tail_bytes), guard_(std::move(guard)),
        next_check_(guard_.guaranteed) {}

  // The program's bytes: counted against the cap.
  void append(runner::StreamTag tag, std::string_view bytes);
  // Writes the marker (if anything was dropped) and the kept tail. If the
  // process dies before this, the log still holds the head, nothing after it.
  void finish();

  std::uint64_t dropped() const { return dropped_; }
  bool spool_was_full() const { return spool_full_; }

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
  SpaceGuard guard_;
  std::uint64_t head_written_ = 0, next_check_ = 0;
  bool spool_full_ = false;

  // True when N more head bytes may be written (the guard allows them).
  bool room_for_head(std::uint64_t n);
  // Drops the oldest ring bytes until at most KEEP remain.
  void shrink_ring(std::uint64_t keep);
};

}  // namespace gpualert::spank
