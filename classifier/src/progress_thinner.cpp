// The hold-back window and the sampling decision.
#include "progress_thinner.hpp"

namespace gpualert::classify::detail {
namespace {

// A line number's pseudo-random sample decision: a fixed stride would keep the same
// rank of a round-robin multi-rank log every time.
bool sampled(std::uint64_t lineno, unsigned one_in) {
  std::uint64_t z = lineno + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return z % one_in == 0;
}

}  // namespace

void ProgressThinner::push(PendingLine&& line) {
  if (steplike(line)) ++held_steps_;
  held_bytes_ += line.view().size() + 64;
  held_.push_back(std::move(line));
  while (held_steps_ > kKeepSteps || held_.size() > kMaxHeld || held_bytes_ > kMaxHeldBytes) evict_front();
}

void ProgressThinner::evict_front() {
  PendingLine& l = held_.front();
  const bool step = steplike(l);
  if (step) --held_steps_;
  held_bytes_ -= l.view().size() + 64;
  // The last step line held may be the run's last progress: read it, and the first
  // stamp after it (when the run went quiet).
  bool read = l.keep || (step && held_steps_ == 0) || sampled(l.lineno, kSampleOneIn);
  if (!read && !step && (l.cues & kCueStamp) && stamp_due_) read = true;
  if (read) {
    if (step) stamp_due_ = true;
    else if (l.cues & kCueStamp) stamp_due_ = false;
    ++read_n_;
    read_(l);
  } else {
    if (step) stamp_due_ = false;
    ++skipped_n_;
    skip_(l);
  }
  held_.pop_front();
}

void ProgressThinner::own_all() {
  for (auto& l : held_) l.own();
}

void ProgressThinner::flush() {
  for (auto& l : held_) {
    ++read_n_;
    read_(l);
  }
  held_.clear();
  held_steps_ = held_bytes_ = 0;
}

}  // namespace gpualert::classify::detail
