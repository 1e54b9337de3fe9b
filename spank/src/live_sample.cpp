#include "live_sample.hpp"

#include <unistd.h>

#include <cerrno>

namespace gpualert::spank {

void LiveSample::feed(std::string_view bytes, Clock::time_point now) {
  if (fd_ < 0 || bytes.empty()) return;
  if (bytes.size() >= limits_.window) {
    pending_.assign(bytes.substr(bytes.size() - limits_.window));
    cut_ = true;
  } else {
    pending_.append(bytes);
    if (pending_.size() > limits_.window) {
      pending_.erase(0, pending_.size() - limits_.window);
      cut_ = true;
    }
  }
  flush(now);
}

void LiveSample::flush(Clock::time_point now, bool force) {
  if (fd_ < 0 || pending_.empty()) return;
  if (!force && now - last_flush_ < limits_.flush_every) return;
  std::string_view out(pending_);
  if (cut_) {  // the window's first line began before it: not a line
    const auto nl = out.find_first_of("\n\r");
    out = nl == std::string_view::npos ? std::string_view() : out.substr(nl + 1);
  }
  // Whole lines only (a progress bar's \r ends one); a partial line waits for its end,
  // unless it alone fills the window.
  const auto end = out.find_last_of("\n\r");
  std::string keep;
  if (end == std::string_view::npos) {
    if (pending_.size() < limits_.window && !force) {
      last_flush_ = now;
      return;
    }
  } else {
    keep.assign(out.substr(end + 1));
    out = out.substr(0, end + 1);
  }
  if (!out.empty()) {
    if (written_ + out.size() > limits_.cap) {
      if (::ftruncate(fd_, 0) == 0) written_ = 0;
    }
    std::size_t off = 0;
    while (off < out.size()) {
      const ssize_t n = ::write(fd_, out.data() + off, out.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // a full spool: the sample is best effort
      off += static_cast<std::size_t>(n);
    }
    written_ += off;
  }
  pending_ = std::move(keep);
  cut_ = false;
  last_flush_ = now;
}

int LiveSample::wait_ms(Clock::time_point now) const {
  if (fd_ < 0 || pending_.empty()) return -1;
  const auto due = last_flush_ + limits_.flush_every;
  if (due <= now) return 0;
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count()) + 1;
}

}  // namespace gpualert::spank
