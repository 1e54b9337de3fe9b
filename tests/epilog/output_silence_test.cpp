#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "last_real_output.hpp"
#include "output_silence.hpp"

using namespace gpualert::epilog;
using Clock = std::chrono::system_clock;
using std::chrono::seconds;

namespace {
const Clock::time_point kStart = Clock::from_time_t(1'800'000'000);
const Clock::time_point kEnd = kStart + seconds(360);
}  // namespace

TEST(OutputSilence, NewestLogWithOutputDecides) {
  // Two tasks: one printed until 5 s, the other until 10 s; an empty third log is no output.
  const auto r = output_silence(kEnd, kStart, {{kStart + seconds(5), 120}, {kStart + seconds(10), 80},
                                               {kStart + seconds(200), 0}});
  ASSERT_TRUE(r.seconds);
  EXPECT_DOUBLE_EQ(*r.seconds, 350.0);
}

TEST(OutputSilence, PrintingUntilTheEndIsNoSilence) {
  // Accounting's End has whole seconds: output a moment later is not negative silence.
  const auto r = output_silence(kEnd, kStart, {{kEnd + std::chrono::milliseconds(700), 4096}});
  ASSERT_TRUE(r.seconds);
  EXPECT_DOUBLE_EQ(*r.seconds, 0.0);
}

TEST(OutputSilence, NoOutputAtAllCountsFromTheStart) {
  const auto r = output_silence(kEnd, kStart, {{kStart + seconds(1), 0}});
  ASSERT_TRUE(r.seconds);
  EXPECT_DOUBLE_EQ(*r.seconds, 360.0);
}

TEST(OutputSilence, UnknownWhenInDoubt) {
  EXPECT_FALSE(output_silence(std::nullopt, kStart, {{kStart + seconds(5), 10}}).seconds) << "no end time";
  EXPECT_FALSE(output_silence(kEnd, kStart, {}).seconds) << "no task log";
  EXPECT_FALSE(output_silence(kEnd, std::nullopt, {{kStart, 0}}).seconds) << "empty logs, no start";
  EXPECT_FALSE(output_silence(kEnd, kEnd + seconds(5), {{kStart, 0}}).seconds) << "start after the end";
  EXPECT_FALSE(output_silence(std::nullopt, kStart, {}).note.empty());
}

TEST(OutputSilence, StatsTaskLogsWithoutFollowingLinks) {
  char tmpl[] = "/tmp/gpualert-silence-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::filesystem::path d(tmpl);
  { std::ofstream(d / "batch.task0.p1.log") << "step 1 loss 2.0\n"; }
  const timespec times[2] = {{1'800'000'000, 0}, {1'800'000'005, 500'000'000}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (d / "batch.task0.p1.log").c_str(), times, 0), 0);
  { std::ofstream(d / "secret") << "root's file, much newer and larger than the log\n"; }
  std::filesystem::create_symlink(d / "secret", d / "0.task0.p2.log");

  JobLogs logs;
  gpualert::spool::StepRecord batch, step0;
  batch.step = "batch";
  batch.tasks.push_back({0, 1, 0, "batch.task0.p1.log", ""});
  step0.step = "0";
  step0.tasks.push_back({0, 2, 0, "0.task0.p2.log", ""});
  step0.tasks.push_back({1, 3, 0, "0.task1.p2.log", ""});  // never created
  logs.steps = {batch, step0};

  gpualert::spool::DirFd dir(::open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir);
  std::vector<std::string> problems;
  const auto stats = stat_task_logs(dir, logs, problems);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].size, 16u);
  EXPECT_EQ(stats[0].mtime, Clock::from_time_t(1'800'000'005) + std::chrono::milliseconds(500));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("0.task0.p2.log"), std::string::npos);
  std::filesystem::remove_all(d);
}

TEST(OutputSilence, AShellsKillNoticeIsNotOutput) {
  EXPECT_TRUE(only_kill_notices("Terminated\n"));
  EXPECT_TRUE(only_kill_notices("/var/spool/slurmd/job00910/slurm_script: line 4: 23345 Killed                  sleep 900\n"));
  EXPECT_TRUE(only_kill_notices("slurmstepd: error: *** JOB 910 ON vm CANCELLED AT 2026-11-27T15:59:07 DUE TO TIME LIMIT ***\n"));
  EXPECT_FALSE(only_kill_notices("step 9 loss 2.1\nTerminated\n"));
  EXPECT_FALSE(only_kill_notices("\n"));
  EXPECT_FALSE(only_kill_notices("Terminated the optimizer early: loss converged\n"));

  // A job that printed five steps, hung for 60 s, and was killed: its shell said
  // "Terminated" at the end. The last output is the fifth step, not the notice.
  char tmpl[] = "/tmp/gpualert-silence-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::filesystem::path d(tmpl);
  const std::string steps = "step 1/100 loss 2.8\nstep 2/100 loss 2.7\n";
  { std::ofstream(d / "batch.task0.p1.log") << steps << "Terminated\n"; }
  {
    std::ofstream idx(d / "batch.task0.p1.streams");
    idx << "o 0 20 10\no 20 20 60\no 40 11 60060\n";
  }
  const timespec times[2] = {{1'800'000'360, 0}, {1'800'000'360, 0}};
  for (const char* f : {"batch.task0.p1.log", "batch.task0.p1.streams"})
    ASSERT_EQ(::utimensat(AT_FDCWD, (d / f).c_str(), times, 0), 0);
  JobLogs logs;
  gpualert::spool::StepRecord batch;
  batch.step = "batch";
  batch.tasks.push_back({0, 1, 0, "batch.task0.p1.log", "batch.task0.p1.streams"});
  logs.steps = {batch};
  gpualert::spool::DirFd dir(::open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::vector<std::string> problems;
  auto stats = stat_task_logs(dir, logs, problems);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].mtime, Clock::from_time_t(1'800'000'300));  // 60 s before the index's last write
  const auto silent = output_silence(kEnd, kStart, stats);
  ASSERT_TRUE(silent.seconds.has_value());
  EXPECT_NEAR(*silent.seconds, 60.0, 0.01);
  // Without the notice, the log's own time stands.
  { std::ofstream(d / "batch.task0.p1.log") << steps << "step 3/100 loss 2.6\n"; }
  ASSERT_EQ(::utimensat(AT_FDCWD, (d / "batch.task0.p1.log").c_str(), times, 0), 0);
  stats = stat_task_logs(dir, logs, problems);
  EXPECT_EQ(stats[0].mtime, Clock::from_time_t(1'800'000'360));
  std::filesystem::remove_all(d);
}
