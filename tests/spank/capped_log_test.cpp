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

TEST(CappedLog, ANearlyFullSpoolStopsTheHeadAfterTheGuaranteedBytes) {
  std::uint64_t free_space = 10'000;  // what the spool has left; the log uses it up
  std::uint64_t asked = 0;
  const int log = ::memfd_create("log", 0), idx = ::memfd_create("idx", 0);
  {
    LogWriter w(::dup(log), ::dup(idx));
    gpualert::spank::SpaceGuard g;
    g.floor = 6'000;
    g.guaranteed = 1'000;
    g.check_every = 500;
    g.free_bytes = [&] {
      ++asked;
      return free_space;
    };
    CappedLog c(w, 100'000, 2'000, g);
    for (int i = 0; i < 200; ++i) {
      c.append(StreamTag::Out, std::string(99, static_cast<char>('a' + i % 26)) + "\n");
      free_space = 10'000 - std::min<std::uint64_t>(10'000, static_cast<std::uint64_t>(::lseek(log, 0, SEEK_END)));
    }
    c.finish();
    w.finish();
    EXPECT_TRUE(c.spool_was_full());
  }
  const std::string text = read_all(log);
  // The head stopped near the floor (4,000 bytes of room, checked every 500),
  // the tail was cut to the guaranteed 1,000 bytes, and the log says why.
  EXPECT_LT(text.size(), 6'500u);
  EXPECT_GE(text.size(), 4'000u);
  EXPECT_NE(text.find("the spool is nearly full"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 100), std::string(99, static_cast<char>('a' + 199 % 26)) + "\n");  // the very end is kept
  EXPECT_LT(asked, 20u);  // asked once per CHECK_EVERY bytes, not per write
  ::close(log);
  ::close(idx);
}

TEST(CappedLog, WithRoomTheGuardChangesNothing) {
  const int log = ::memfd_create("log", 0), idx = ::memfd_create("idx", 0);
  {
    LogWriter w(::dup(log), ::dup(idx));
    gpualert::spank::SpaceGuard g;
    g.floor = 1'000;
    g.guaranteed = 10;
    g.check_every = 10;
    g.free_bytes = [] { return std::uint64_t{1} << 40; };
    CappedLog c(w, 100'000, 2'000, g);
    for (int i = 0; i < 100; ++i) c.append(StreamTag::Out, "line\n");
    c.finish();
    w.finish();
    EXPECT_FALSE(c.spool_was_full());
  }
  EXPECT_EQ(read_all(log), [] {
    std::string s;
    for (int i = 0; i < 100; ++i) s += "line\n";
    return s;
  }());
  ::close(log);
  ::close(idx);
}
