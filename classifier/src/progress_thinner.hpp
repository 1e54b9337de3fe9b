#pragma once
// Which training-progress lines of a long log are read in full. A long run prints
// millions of near-identical progress lines; reading each costs far more than finding
// it. The thinner reads every one in the first part of the log, every marker's first
// occurrences, and the last lines of progress exactly (held back until later lines
// show they are not the last), and a random sample of the steady middle; the lines it
// leaves out are still counted.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

namespace gpualert::classify::detail {

// What the fast matcher saw on a line, for the progress reader.
enum CueBit : std::uint16_t {
  kCueStep = 1,        // may be a step / progress-bar line
  kCueStamp = 2,       // carries a date and time
  kCueLoss = 4,        // a progress rule (a loss value) may match
  kCueDone = 8,        // a completion / checkpoint rule may match
  kCueSave = 16,       // a checkpoint save
  kCueThrottle = 32,   // a throttle record
  kCueNonfinite = 64,  // a nan / inf value
  kCueMarker = 128,    // another marker (resume, fresh start, network, ...)
  kCueAll = 0xff,
};

struct PendingLine {
  std::uint64_t lineno = 0;
  std::uint16_t cues = 0;
  bool keep = false;  // must be read, whatever the sample says
  int section = -1;
  std::string section_key;  // the section's stand-in for a rank prefix
  std::string_view view() const { return owned_ ? std::string_view(text_) : ref_; }
  void set(std::string_view t) {
    ref_ = t;
    owned_ = false;
  }
  // Copies the text out of the block it points into (which is about to be reused).
  void own() {
    if (owned_) return;
    text_.assign(ref_);
    owned_ = true;
  }

 private:
  std::string_view ref_;
  std::string text_;
  bool owned_ = false;
};

class ProgressThinner {
 public:
  using Visit = std::function<void(const PendingLine&)>;
  // READ gets the lines read in full, SKIP the ones left out, both in log order.
  ProgressThinner(Visit read, Visit skip) : read_(std::move(read)), skip_(std::move(skip)) {}

  void push(PendingLine&& line);
  // Before the block the held lines point into is reused.
  void own_all();
  // The end of the log: everything still held is read.
  void flush();

  std::uint64_t read_count() const { return read_n_; }
  std::uint64_t skipped_count() const { return skipped_n_; }

  // The last kKeepSteps step lines are always read in full.
  static constexpr std::size_t kKeepSteps = 256;
  static constexpr std::size_t kMaxHeld = 16384;
  static constexpr std::size_t kMaxHeldBytes = 4u << 20;
  static constexpr unsigned kSampleOneIn = 256;

 private:
  static bool steplike(const PendingLine& l) { return (l.cues & (kCueStep | kCueLoss | kCueDone)) != 0; }
  void evict_front();
  Visit read_, skip_;
  std::deque<PendingLine> held_;
  std::size_t held_steps_ = 0, held_bytes_ = 0;
  bool stamp_due_ = false;  // the next stamp after a step line read is read too
  std::uint64_t read_n_ = 0, skipped_n_ = 0;
};

}  // namespace gpualert::classify::detail
