// The live conditions on made-up observations (the clock is the observation's): each fires
// once, again only after it stopped being true, and never for a steady run.
#include "gpualert/live/conditions.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpualert/live/process_tree.hpp"

namespace gpualert::live {
namespace {

using namespace std::chrono_literals;

struct Feed {
  Clock::time_point t0 = Clock::now();
  Conditions c;
  Observation o;
  explicit Feed(Limits l) : c(l) {
    o.at = t0;
    o.last_output = t0;
  }
  std::vector<std::string> at(std::chrono::seconds s) {
    o.at = t0 + s;
    std::vector<std::string> out;
    for (const auto& a : c.observe(o)) out.push_back(a.condition);
    return out;
  }
};

Limits limits(std::chrono::milliseconds stall, std::chrono::milliseconds limit = 0ms) {
  Limits l;
  l.started = Clock::now();
  l.stall_after = stall;
  l.time_limit = limit;
  return l;
}

TEST(LiveConditions, AStallFiresOnceThenAgainOnlyAfterOutputResumed) {
  Feed f(limits(60s));
  f.o.last_line = "step 5/100 loss 1.2";
  f.o.cpu_s = 10.0;
  EXPECT_TRUE(f.at(30s).empty());
  f.o.cpu_s = 10.0;
  EXPECT_EQ(f.at(61s), std::vector<std::string>{"stall"});
  EXPECT_TRUE(f.at(120s).empty()) << "still stalled: said once";
  EXPECT_NE(f.c.fired().back().facts[1].find("idle"), std::string::npos) << f.c.fired().back().facts[1];
  f.o.last_output = f.t0 + 130s;  // it printed again
  EXPECT_TRUE(f.at(131s).empty());
  f.o.cpu_s = 200.0;  // busy from here: 70 CPU seconds over 60 s... per second above 0.5
  EXPECT_TRUE(f.at(140s).empty());
  f.o.cpu_s = 260.0;
  EXPECT_EQ(f.at(200s), std::vector<std::string>{"stall"});
  EXPECT_NE(f.c.fired().back().facts[1].find("using CPU"), std::string::npos) << f.c.fired().back().facts[1];
  f.o.alive = false;
  f.o.last_output = f.t0 + 130s;
  EXPECT_TRUE(f.at(400s).empty()) << "an ended command does not stall";
}

TEST(LiveConditions, AStallStillTrueAfterItsGraceAsksOnceForTheRunToEnd) {
  auto l = limits(60s);
  l.cancel_after_stall = 120s;
  Feed f(l);
  f.o.last_line = "step 5/100 loss 1.2";
  EXPECT_EQ(f.at(61s), std::vector<std::string>{"stall"});
  EXPECT_TRUE(f.at(179s).empty()) << "within the grace";
  EXPECT_EQ(f.at(181s), std::vector<std::string>{"stall_cancel"});
  EXPECT_NE(f.c.fired().back().facts[1].find("2 min ago"), std::string::npos) << f.c.fired().back().facts[1];
  EXPECT_TRUE(f.at(300s).empty()) << "asked once";
  f.o.last_output = f.t0 + 310s;  // printed again: a later stall starts its own grace
  EXPECT_TRUE(f.at(311s).empty());
  EXPECT_EQ(f.at(371s), std::vector<std::string>{"stall"});
  EXPECT_EQ(f.at(491s), std::vector<std::string>{"stall_cancel"});
  Feed never(limits(60s));
  EXPECT_EQ(never.at(61s), std::vector<std::string>{"stall"});
  EXPECT_TRUE(never.at(10000s).empty()) << "cancel_after_stall = 0: never";
}

TEST(LiveConditions, ANonFiniteLossFiresOnceWhileTheCommandRuns) {
  Feed f(limits(3600s));
  f.o.snap.losses = 10;
  EXPECT_TRUE(f.at(5s).empty());
  f.o.snap.nonfinite = 1;
  f.o.snap.first_nonfinite_line = 42;
  f.o.snap.last_loss = 0.5;
  const auto fired = f.at(10s);
  ASSERT_EQ(fired, std::vector<std::string>{"nan"});
  EXPECT_EQ(f.c.fired().back().headline, "the loss is not a number since line 42");
  f.o.snap.nonfinite = 30;
  EXPECT_TRUE(f.at(20s).empty());
}

TEST(LiveConditions, APaceThatCannotReachTheTotalInTheLimit) {
  Feed f(limits(3600s, 3600s));
  f.o.snap.total_steps = 10000;
  f.o.snap.step = 100;
  EXPECT_TRUE(f.at(10s).empty());   // the pace starts here
  f.o.snap.step = 200;              // 100 steps in 60 s: 9800 left take 98 min > 60 min
  const auto fired = f.at(70s);
  ASSERT_EQ(fired, std::vector<std::string>{"wont_finish"});
  EXPECT_NE(f.c.fired().back().facts[0].find("the limit is 60 min"), std::string::npos) << f.c.fired().back().facts[0];
  Feed fast(limits(3600s, 3600s));
  fast.o.snap.total_steps = 10000;
  fast.o.snap.step = 100;
  EXPECT_TRUE(fast.at(10s).empty());
  fast.o.snap.step = 1100;  // 1000 steps a minute: done in ten
  EXPECT_TRUE(fast.at(70s).empty());
  // A run that stopped advancing: its pace is the one it had, and its silence a stall.
  Feed stuck(limits(3600s, 120s));
  stuck.o.snap.total_steps = 100;
  stuck.o.snap.step = 2;
  EXPECT_TRUE(stuck.at(1s).empty());
  stuck.o.snap.step = 50;  // 48 steps in 6 s: the 50 left take 6 s more
  EXPECT_TRUE(stuck.at(7s).empty());
  for (int t = 20; t <= 110; t += 10)
    EXPECT_TRUE(stuck.at(std::chrono::seconds(t)).empty()) << "no step since 7 s: not a pace at " << t << " s";
  Feed slow(limits(3600s, 120s));
  slow.o.snap.total_steps = 100;
  slow.o.snap.step = 2;
  EXPECT_TRUE(slow.at(1s).empty());
  slow.o.snap.step = 4;
  EXPECT_TRUE(slow.at(5s).empty());
  slow.o.snap.step = 5;  // still advancing, 3 steps in 9 s: 95 more take 285 s past the limit
  EXPECT_EQ(slow.at(10s), std::vector<std::string>{"wont_finish"});
  Feed unknown(limits(3600s));  // no limit known: nothing to say
  unknown.o.snap = f.o.snap;
  EXPECT_TRUE(unknown.at(10s).empty());
  EXPECT_TRUE(unknown.at(70s).empty());
}

TEST(ProcessTree, SumsTheTreeAndKnowsAZombie) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpualert-proc-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto proc = [&](int pid, const std::string& stat, const std::string& kids) {
    std::filesystem::create_directories(dir / std::to_string(pid) / "task" / std::to_string(pid));
    std::ofstream(dir / std::to_string(pid) / "stat") << stat << "\n";
    std::ofstream(dir / std::to_string(pid) / "task" / std::to_string(pid) / "children") << kids;
  };
  const long tick = ::sysconf(_SC_CLK_TCK);
  const std::string t = std::to_string(tick);  // one second in ticks
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
  proc(10, "10 (py (x) y) S 1 10 10 0 -1 0 0 0 0 0 " + t + " " + t + " " + t + " 0", "11 ");
  proc(11, "11 (worker) R 10 10 10 0 -1 0 0 0 0 0 " + t + " 0 0 0", "");
  const TreeUse u = tree_use(10, dir.c_str());
  EXPECT_TRUE(u.alive);
  ASSERT_TRUE(u.cpu_s);
  EXPECT_DOUBLE_EQ(*u.cpu_s, 4.0);
  proc(12, "12 (gone) Z 1 12 12 0 -1 0 0 0 0 0 0 0 0 0", "");
  EXPECT_FALSE(tree_use(12, dir.c_str()).alive);
  EXPECT_FALSE(tree_use(13, dir.c_str()).alive);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpualert::live
