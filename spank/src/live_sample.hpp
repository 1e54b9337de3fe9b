#pragma once
// The task's live sample: what the live watcher reads while the job runs. The
// spool log keeps only its head while the task runs (the tail is written at the
// end), so past the head a watcher would see nothing. The tee therefore appends,
// at most once per FLUSH_EVERY, the last lines it forwarded since the previous
// append (at most WINDOW bytes) to a small file; the file starts over from empty
// when it passes CAP. A reader that finds the file shorter than where it stopped
// starts again from 0. Costs per byte: one bounded copy into the window.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpualert::spank {

class LiveSample {
 public:
  using Clock = std::chrono::steady_clock;
  struct Limits {
    std::chrono::milliseconds flush_every{2000};
    std::size_t window = 16u << 10;
    std::uint64_t cap = 1u << 20;
  };

  // FD: opened with O_APPEND by root for the job's user; -1: no sample kept.
  explicit LiveSample(int fd) : LiveSample(fd, Limits{}) {}
  LiveSample(int fd, Limits l) : fd_(fd), limits_(l) {}

  void feed(std::string_view bytes, Clock::time_point now);
  // Appends what is pending when its time has come (or always with FORCE).
  void flush(Clock::time_point now, bool force = false);
  // How long poll() may sleep before a pending flush is due; -1: nothing pending.
  int wait_ms(Clock::time_point now) const;

 private:
  int fd_;
  Limits limits_;
  std::string pending_;  // the newest bytes since the last flush, at most WINDOW
  bool cut_ = false;     // pending_ lost its front: its first line is partial
  Clock::time_point last_flush_{};
  std::uint64_t written_ = 0;
};

}  // namespace gpualert::spank
