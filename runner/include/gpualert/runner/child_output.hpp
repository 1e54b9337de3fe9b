#pragma once
// How the wrapped program's stdout and stderr reach the wrapper: a pipe per
// stream; one channel for both when they lead to one place (2>&1, one file,
// one terminal), so their order is kept exactly; and a pty in front of a
// terminal, so the program still sees a terminal (line buffering, colours,
// progress bars) while its bytes are captured.
#include <string>
#include <vector>

#include "gpualert/runner/log_writer.hpp"

namespace gpualert::runner {

struct OutputChannel {
  int read = -1;   // ours: the pipe's read end or the pty's master
  int child = -1;  // the program's end: the pipe's write end or the pty's slave
  int real = -1;   // where the bytes go on: STDOUT_FILENO or STDERR_FILENO
  StreamTag tag = StreamTag::Out;
  bool pty = false;
};

class ChildOutput {
 public:
  // PTY: put a pty in front of a stream that leads to a terminal. Throws
  // std::runtime_error when no pipe can be made (a missing pty falls back to a pipe).
  explicit ChildOutput(bool pty);
  ~ChildOutput();
  ChildOutput(const ChildOutput&) = delete;
  ChildOutput& operator=(const ChildOutput&) = delete;

  // In the child, before exec: fds 1 and 2 become the channels' program ends.
  void attach_in_child() const;
  // In the parent, once the child exists.
  void close_child_ends();
  // The real terminal changed size: each pty takes the new size.
  void follow_window_size() const;

  int count() const { return n_; }
  OutputChannel& channel(int i) { return ch_[i]; }
  bool shared() const { return shared_; }
  bool any_pty() const { return ch_[0].pty || ch_[1].pty; }
  // Said once at the top of the log (e.g. "stdout and stderr ... one stream").
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  OutputChannel ch_[2];
  int n_ = 0;
  bool shared_ = false;
  std::vector<std::string> notes_;
};

}  // namespace gpualert::runner
