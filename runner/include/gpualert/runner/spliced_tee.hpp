#pragma once
// The copy step without copies: tee(2) duplicates what the program wrote into
// a second pipe, splice(2) moves one copy to the real destination and the
// other into the log, and no byte passes through user space. Where the kernel
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
  int aux_[2] = {-1, -1};
  bool usable_ = false;
};

}  // namespace gpualert::runner
