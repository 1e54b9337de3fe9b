#include "capped_log.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log_index.hpp"

using gpualert::runner::LogWriter;
using gpualert::runner::StreamTag;
using gpualert::spank::CappedLog;
using gpualert::spank::test::split_by_index;

namespace {

std::string read_all(int fd) {
  std::string s;
  char b[4096];
  ssize_t n;
  for (off_t at = 0; (n = ::pread(fd, b, sizeof b, at)) > 0; at += n) s.append(b, static_cast<std::size_t>(n));
  return s;
}

// Runs WRITE against a CappedLog on in-memory files; returns log and index.
template <typename F>
std::pair<std::string, std::string> capture(std::uint64_t head, std::uint64_t tail, F write) {
  const int log = ::memfd_create("log", 0), idx = ::memfd_create("idx", 0);
  {
    LogWriter w(::dup(log), ::dup(idx));
    CappedLog c(w, head, tail);
    write(c);
    c.finish();
    w.finish();
  }
  auto r = std::make_pair(read_all(log), read_all(idx));
  ::close(log);
  ::close(idx);
  return r;
}

std::string marker(int n, int h, int t) {
  return "[gpualert] " + std::to_string(n) + " bytes of output were not kept (the log keeps the first " +
         std::to_string(h) + " and the last " + std::to_string(t) + " bytes)\n";
}

}  // namespace

TEST(CappedLog, UnderTheCapEverythingIsKeptWithoutMarker) {
  auto [log, idx] = capture(4, 8, [](CappedLog& c) {
    c.append(StreamTag::Out, "abcdef");
    c.append(StreamTag::Err, "XYZ");
  });
  EXPECT_EQ(log, "abcdefXYZ");
  auto s = split_by_index(log, idx);
  EXPECT_EQ(s['o'], "abcdef");
  EXPECT_EQ(s['e'], "XYZ");
}

TEST(CappedLog, KeepsHeadAndLastTailBytesAcrossStreams) {
  auto [log, idx] = capture(3, 5, [](CappedLog& c) {
    c.append(StreamTag::Out, "0123");  // head 012, ring 3
    c.append(StreamTag::Err, "abcd");  // ring 3abcd
    c.append(StreamTag::Out, "ef");    // ring bcdef: 3 and a dropped
    c.append(StreamTag::Err, "g");     // ring cdefg
  });
  EXPECT_EQ(log, "012" + marker(3, 3, 5) + "cdefg");
  auto s = split_by_index(log, idx);
  EXPECT_EQ(s['o'], "012ef");
  EXPECT_EQ(s['e'], "cdg");
  EXPECT_EQ(s['g'], marker(3, 3, 5));
}

TEST(CappedLog, OneChunkLargerThanTheTailAndZeroCaps) {
  auto [log, idx] = capture(2, 3, [](CappedLog& c) {
    c.append(StreamTag::Out, "ab");
    c.append(StreamTag::Out, "xy");
    c.append(StreamTag::Out, "0123456789");
  });
  EXPECT_EQ(log, "ab" + marker(9, 2, 3) + "789");
  auto [none, idx0] = capture(0, 0, [](CappedLog& c) { c.append(StreamTag::Err, "abc"); });
  EXPECT_EQ(none, marker(3, 0, 0));
}
