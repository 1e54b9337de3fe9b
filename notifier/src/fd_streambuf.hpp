#pragma once
// An output streambuf over a descriptor that remembers the errno of a failed
// write, so "disk full" reaches the caller as ENOSPC, not as a vague badbit.
#include <unistd.h>

#include <cerrno>
#include <streambuf>
#include <vector>

namespace gpualert::notify {

class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd), buf_(64 * 1024) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }

  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

}  // namespace gpualert::notify
