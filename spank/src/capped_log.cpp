#include "capped_log.hpp"

#include <algorithm>

namespace gpualert::spank {
namespace {
// Small writes are merged into pieces up to this size, so a program printing
// short lines does not cost one heap block per line.
constexpr std::size_t kPiece = 64 * 1024;
}  // namespace

bool CappedLog::room_for_head(std::uint64_t n) {
  if (!guard_.free_bytes || head_written_ + n <= next_check_) return true;
  next_check_ = head_written_ + n + guard_.check_every;
  if (guard_.free_bytes() >= guard_.floor + n) return true;
  spool_full_ = true;
  head_left_ = 0;  // from here on only the tail is kept, in memory
  return false;
}

void CappedLog::shrink_ring(std::uint64_t keep) {
  while (tail_size_ > keep) {
    Piece& p = ring_.front();
    const auto cut = static_cast<std::size_t>(std::min<std::uint64_t>(p.data.size() - p.off, tail_size_ - keep));
    p.off += cut;
    tail_size_ -= cut;
    dropped_ += cut;
    if (p.off == p.data.size()) ring_.pop_front();
  }
}

void CappedLog::append(runner::StreamTag tag, std::string_view bytes) {
  if (head_left_ > 0) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(head_left_, bytes.size()));
    if (room_for_head(n)) {
      log_.append(tag, bytes.substr(0, n));
      head_left_ -= n;
      head_written_ += n;
      bytes.remove_prefix(n);
    }
  }
  if (bytes.empty()) return;
  if (bytes.size() >= tail_) {  // this chunk alone replaces the whole ring
    dropped_ += tail_size_ + (bytes.size() - tail_);
    ring_.clear();
    tail_size_ = 0;
    bytes.remove_prefix(bytes.size() - tail_);
    if (bytes.empty()) return;
  }
  if (!ring_.empty() && ring_.back().tag == tag && ring_.back().data.size() < kPiece)
    ring_.back().data.append(bytes);
  else
    ring_.push_back({tag, std::string(bytes), 0});
  tail_size_ += bytes.size();
  shrink_ring(tail_);
}

void CappedLog::finish() {
  if (guard_.free_bytes && tail_size_ > guard_.guaranteed) {
    const std::uint64_t free = guard_.free_bytes();
    const std::uint64_t room = free > guard_.floor ? free - guard_.floor : 0;
    if (room < tail_size_) {
      spool_full_ = true;
      shrink_ring(std::max(room, guard_.guaranteed));
    }
  }
  if (spool_full_)
    log_.append(runner::StreamTag::Gpualert,
                "[gpualert] the spool is nearly full (under " + std::to_string(guard_.floor) +
                    " bytes free): this log kept less than its usual share so that other jobs keep theirs\n");
  if (dropped_ > 0)
    log_.append(runner::StreamTag::Gpualert,
                "[gpualert] " + std::to_string(dropped_) + " bytes of output were not kept (the log keeps the first " +
                    std::to_string(head_) + " and the last " + std::to_string(tail_) + " bytes)\n");
  // These bytes arrived earlier than the index will say: it records when they
  // were written here. Offsets stay exact, which is what readers rely on.
  for (const Piece& p : ring_) log_.append(p.tag, std::string_view(p.data).substr(p.off));
  ring_.clear();
  tail_size_ = 0;
}

}  // namespace gpualert::spank
