// The tee's live sample: whole lines only, at most one append per flush period, the
// newest lines when output floods, and a fresh start past the cap.
#include "live_sample.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace gpualert::spank {
namespace {

using namespace std::chrono_literals;

struct SampleFile {
  std::string path;
  int fd = -1;
  SampleFile() {
    char tmpl[] = "/tmp/gpualert-live-sample-XXXXXX";
    const int t = ::mkstemp(tmpl);
    path = tmpl;
    ::close(t);
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_TRUNC);
  }
  ~SampleFile() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string text() const {
    std::string out;
    const int r = ::open(path.c_str(), O_RDONLY);
    char b[4096];
    for (ssize_t n; (n = ::read(r, b, sizeof b)) > 0;) out.append(b, static_cast<std::size_t>(n));
    ::close(r);
    return out;
  }
};

TEST(LiveSample, AppendsWholeLinesAtMostOncePerPeriod) {
  SampleFile f;
  LiveSample s(f.fd, {2000ms, 1024, 1u << 20});
  const auto t0 = LiveSample::Clock::now();
  s.feed("step 1 loss 2.0\nstep 2 lo", t0);
  EXPECT_EQ(f.text(), "step 1 loss 2.0\n") << "the first lines go out at once; the partial line waits";
  s.feed("ss 1.9\n", t0 + 500ms);
  EXPECT_EQ(f.text(), "step 1 loss 2.0\n") << "within the period nothing more is written";
  EXPECT_GT(s.wait_ms(t0 + 500ms), 0);
  EXPECT_LE(s.wait_ms(t0 + 500ms), 1501);
  s.flush(t0 + 2100ms);
  EXPECT_EQ(f.text(), "step 1 loss 2.0\nstep 2 loss 1.9\n");
  EXPECT_EQ(s.wait_ms(t0 + 2100ms), -1) << "nothing pending";
}

TEST(LiveSample, AFloodKeepsOnlyTheNewestWholeLines) {
  SampleFile f;
  LiveSample s(f.fd, {2000ms, 64, 1u << 20});
  const auto t0 = LiveSample::Clock::now();
  s.feed("start\n", t0);
  std::string flood;
  for (int i = 0; i < 1000; ++i) flood += "step " + std::to_string(i) + "\n";
  s.feed(flood, t0 + 100ms);
  s.flush(t0 + 3s);
  const std::string text = f.text();
  EXPECT_EQ(text.rfind("start\n", 0), 0u);
  const std::string rest = text.substr(6);
  EXPECT_LE(rest.size(), 64u);
  EXPECT_EQ(rest.substr(rest.size() - 9), "step 999\n");
  EXPECT_EQ(rest.find("step "), 0u) << "the cut line is left out: " << rest;
}

TEST(LiveSample, StartsOverPastItsCapAndACarriageReturnEndsALine) {
  SampleFile f;
  LiveSample s(f.fd, {0ms, 1024, 100});
  const auto t0 = LiveSample::Clock::now();
  for (int i = 0; i < 30; ++i) s.feed("line " + std::to_string(i) + "\n", t0 + std::chrono::milliseconds(i));
  const std::string text = f.text();
  EXPECT_LE(text.size(), 100u);
  EXPECT_NE(text.find("line 29\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("line 0\n"), std::string::npos) << text;
  s.feed(" 50%|#####     | 5/10\r", t0 + 1s);
  EXPECT_NE(f.text().find("5/10\r"), std::string::npos);
}

TEST(LiveSample, WithoutAFileNothingHappens) {
  LiveSample s(-1);
  s.feed("x\n", LiveSample::Clock::now());
  EXPECT_EQ(s.wait_ms(LiveSample::Clock::now()), -1);
}

}  // namespace
}  // namespace gpualert::spank
