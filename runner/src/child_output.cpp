#include "gpualert/runner/child_output.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "gpualert/runner/destination.hpp"

namespace gpualert::runner {
namespace {

void make_pipe(OutputChannel& c) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  // Bigger pipes mean fewer wake-ups for a fast writer; failure is harmless.
  ::fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
  c.read = p[0];
  c.child = p[1];
}

// A pty whose slave looks like REAL (modes, window size) but passes bytes
// unchanged (no output processing): the real terminal still does its own.
bool make_pty(OutputChannel& c, int real) {
  const int m = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (m < 0) return false;
  char name[128];
  int s = -1;
  if (::grantpt(m) == 0 && ::unlockpt(m) == 0 && ::ptsname_r(m, name, sizeof name) == 0)
    s = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (s < 0) {
    ::close(m);
    return false;
  }
  termios t {};
  if (::tcgetattr(real, &t) == 0) {
    t.c_oflag &= ~static_cast<tcflag_t>(OPOST);
    ::tcsetattr(s, TCSANOW, &t);
  }
  winsize w {};
  if (::ioctl(real, TIOCGWINSZ, &w) == 0) ::ioctl(s, TIOCSWINSZ, &w);
  c.read = m;
  c.child = s;
  c.pty = true;
  return true;
}

}  // namespace

ChildOutput::ChildOutput(bool pty) {
  shared_ = one_destination(STDOUT_FILENO, STDERR_FILENO);
  const int streams = shared_ ? 1 : 2;
  for (int i = 0; i < streams; ++i) {
    OutputChannel& c = ch_[n_];
    c.real = i == 0 ? STDOUT_FILENO : STDERR_FILENO;
    c.tag = i == 0 ? StreamTag::Out : StreamTag::Err;
    if (!(pty && ::isatty(c.real) == 1 && make_pty(c, c.real))) make_pipe(c);
    ++n_;
  }
  if (shared_)
    notes_.push_back(std::string("stdout and stderr lead to one ") + (ch_[0].pty ? "terminal" : "place") +
                     ": captured as one stream, in the program's order");
}

ChildOutput::~ChildOutput() {
  for (auto& c : ch_)
    for (int fd : {c.read, c.child})
      if (fd >= 0) ::close(fd);
}

void ChildOutput::attach_in_child() const {
  if (shared_) {
    ::dup2(ch_[0].child, STDOUT_FILENO);
    ::dup2(ch_[0].child, STDERR_FILENO);
    return;
  }
  for (int i = 0; i < n_; ++i) ::dup2(ch_[i].child, ch_[i].real);
}

void ChildOutput::close_child_ends() {
  for (auto& c : ch_)
    if (c.child >= 0) {
      ::close(c.child);
      c.child = -1;
    }
}

void ChildOutput::follow_window_size() const {
  for (int i = 0; i < n_; ++i) {
    winsize w {};
    if (ch_[i].pty && ::ioctl(ch_[i].real, TIOCGWINSZ, &w) == 0) ::ioctl(ch_[i].read, TIOCSWINSZ, &w);
  }
}

}  // namespace gpualert::runner
