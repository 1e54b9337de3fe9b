#pragma once
// The copy step shared by `gpualert run` and the Slurm plugin's tee: bytes go
// to their real destination first (the user's view comes first), then to the log.
#include <functional>
#include <string>
#include <vector>

#include "gpualert/runner/log_writer.hpp"

namespace gpualert::runner {

struct TeeSource {
  int fd = -1;   // read end of the pipe the program writes into
  int out = -1;  // where those bytes would have gone without us
  StreamTag tag = StreamTag::Out;
  bool open = false;
  bool out_broken = false;
  bool splice = true;  // SplicedTee may still try splice/tee(2) on it
};

// Reads one chunk from a readable S and forwards it. Returns false (and closes
// S.fd) at EOF, on a read error, or when S.out can no longer be written: then
// the program sees EPIPE/SIGPIPE on its next write, as it would without us.
// ON_SIGNAL runs when a signal interrupts a blocked write. Notes say what happened.
bool pump(TeeSource& s, LogWriter& log, std::string& buf, const std::function<void()>& on_signal,
          std::vector<std::string>& notes);

// Writes all of DATA to FD; false on an error other than EINTR/EAGAIN.
bool write_out(int fd, std::string_view data, const std::function<void()>& on_signal);

}  // namespace gpualert::runner
