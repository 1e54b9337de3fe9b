#pragma once
// The copy step without copies: splice(2) first moves what the program wrote out
// of its pipe into one of ours (page references only, so the program's pipe is
// free again at once and it never waits on our writes to a file), tee(2)
// duplicates it into a second one, and splice(2) moves one copy to the real
// destination and the other into the log; no byte passes through user space. Where the kernel
// cannot (a terminal or an append-only file as the destination, a pty as the
// source, a log that failed) it falls back to pump() for good, seamlessly.
#include <functional>
#include <string>
#include <vector>

#include "gpualert/runner/log_writer.hpp"
#include "gpualert/runner/tee.hpp"

namespace gpualert::runner {

class SplicedTee {
 public:
  SplicedTee();  // the spare pipe; without it every call falls back
  ~SplicedTee();
  SplicedTee(const SplicedTee&) = delete;
  SplicedTee& operator=(const SplicedTee&) = delete;

  // As pump(): one round for a readable S. Returns false once S is closed.
  bool pump(TeeSource& s, LogWriter& log, std::string& buf, const std::function<void()>& on_signal,
            std::vector<std::string>& notes);

 private:
  int mid_[2] = {-1, -1};  // what was taken from the program's pipe
  int aux_[2] = {-1, -1};  // its duplicate, for the log
  std::size_t round_ = 0;  // bytes per round: what both pipes can hold
  bool usable_ = false;
};

}  // namespace gpualert::runner
