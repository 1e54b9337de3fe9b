// Diagnosis depth: training-progress parsing, done-but-bad verdicts, kernel events,
// hang vs timeout. Each test states the evidence and the class it must give.
#include <fstream>
#include <functional>
#include <string>

#include <filesystem>
#include <cstdlib>
#include <ctime>
#include <unistd.h>
#include <gtest/gtest.h>

#include "gpualert/events/kernel_events.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

std::string repeat(int n, const std::function<std::string(int)>& f) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += f(i);
  return s;
}

bool cannot_decide_has(const Verdict& v, const std::string& needle) {
  for (const auto& c : v.cannot_decide)
    if (c.find(needle) != std::string::npos) return true;
  return false;
}

TEST(Progress, HealthyNeedsAFallingLoss) {
  const std::string log = repeat(40, [](int i) { return "step " + std::to_string(i) + "/40 loss " + std::to_string(10.0 / i) + "\n"; });
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_GE(v.confidence, 0.7);
}

TEST(Progress, NoProgressFormatIsUnverifiableNotAGuess) {
  const Verdict v = run("starting\nall done\n", 0);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_LE(raw_confidence("starting\nall done\n", 0), 0.4);
  EXPECT_TRUE(cannot_decide_has(v, "unverifiable"));
}

TEST(Progress, HandfulOfStepsIsUndertrained) {
  const Verdict v = run(
      "***** Running training *****\n  Total optimization steps = 2\n"
      "{'loss': 16.2, 'grad_norm': 4.2, 'learning_rate': 0.02, 'epoch': 0.5}\n"
      "{'loss': 14.4, 'grad_norm': 2.0, 'learning_rate': 0.02, 'epoch': 1.0}\n",
      0);
  EXPECT_EQ(v.cls, "undertrained");
}

TEST(Progress, CarriageReturnBarsAreReadRecordByRecord) {
  // A Keras epoch redrawn with \r: 40 records on one physical line, loss falling.
  std::string line;
  for (int i = 1; i <= 40; ++i) line += std::to_string(i) + "/40 [====>...] - 1s 3ms/step - loss: " + std::to_string(20.0 / i) + "\r";
  const Verdict v = run("Epoch 1/1\n" + line + "\n", 0);
  EXPECT_EQ(v.cls, "healthy");
}

TEST(Progress, ResumeRequestedButStartedFromScratch) {
  const std::string body = repeat(30, [](int i) { return "{'loss': " + std::to_string(12.0 / i) + ", 'epoch': " + std::to_string(i) + "}\n"; });
  const std::string req = "Namespace(resume_from_checkpoint='out/checkpoint-300', max_steps=300)\n";
  EXPECT_EQ(run(req + body, 0).cls, "resume_from_scratch");
  // The same run with a load marker resumed properly.
  EXPECT_EQ(run(req + "Continuing training from checkpoint, will skip to saved global_step\n" + body, 0).cls, "healthy");
  // Without a resume request it is an ordinary run.
  EXPECT_EQ(run(body, 0).cls, "healthy");
}

// "resume=1" only says "resume if there is something": a job that then says it found no
// checkpoint and starts from scratch is a first run. A checkpoint it was told to load
// that is not there is still a lost resume.
TEST(Progress, AnAutoResumeThatFindsNothingOnAFirstRunIsNoLostResume) {
  const std::string body = repeat(30, [](int i) { return "{'loss': " + std::to_string(12.0 / i) + ", 'epoch': " + std::to_string(i) + "}\n"; });
  const std::string fresh = "[CHECKPOINT] No checkpoint found at out/checkpoint_latest.pth, starting from scratch.\n";
  EXPECT_EQ(run("Namespace(resume=1, epochs=30)\n" + fresh + body, 0).cls, "healthy");
  EXPECT_EQ(run("Namespace(resume_from='out/checkpoint_latest.pth', epochs=30)\n" + fresh + body, 0).cls, "resume_from_scratch");
}

TEST(Progress, ZeroGradNormIsDivergence) {
  const std::string log = repeat(30, [](int i) {
    return "{'loss': " + std::to_string(2.30 - 0.0001 * i) + ", 'grad_norm': 0.0, 'learning_rate': 0.02, 'epoch': " + std::to_string(i) + "}\n";
  });
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "divergence");
}

TEST(Progress, LaunchBlockingIsThroughputBound) {
  const std::string steps = repeat(30, [](int i) { return "step " + std::to_string(i * 10) + " loss " + std::to_string(8.0 / i) + " | 4.0 s/it\n"; });
  EXPECT_EQ(run("environment: CUDA_LAUNCH_BLOCKING=1\n" + steps, 0).cls, "throughput_bound");
  // torch's advice to set it is not the setting.
  EXPECT_EQ(run("For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n" + steps, 0).cls, "healthy");
}

TEST(Progress, CheckpointEveryStepIsThroughputBound) {
  const std::string log = repeat(20, [](int i) {
    return "step " + std::to_string(i) + "/20 loss " + std::to_string(9.0 / i) + "\nsaved checkpoint ckpt/checkpoint-" + std::to_string(i) + ".pt\n";
  });
  EXPECT_EQ(run(log, 0).cls, "throughput_bound");
}

TEST(Progress, OneSlowRankIsAStraggler) {
  std::string log;
  for (int s = 1; s <= 20; ++s)
    for (int r = 0; r < 4; ++r)
      log += "[rank" + std::to_string(r) + "] step " + std::to_string(s) + " loss " + std::to_string(8.0 / s) + " fwd_bwd " +
             (r == 2 ? "2100" : "600") + "ms allreduce_wait " + (r == 2 ? "0" : "1400") + "ms\n";
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "straggler");
  bool named = false;
  for (const auto& s : v.shows) named |= s.rfind("rank 2:", 0) == 0;
  EXPECT_TRUE(named) << to_text_for_test(v);
}

TEST(Progress, ThrottleNoticesWithSlowerStepsAreThermal) {
  std::string log;
  for (int i = 1; i <= 40; ++i) {
    log += "step " + std::to_string(i * 10) + "/400 | loss " + std::to_string(5.0 / i) + " | " + (i > 20 ? "1.10" : "0.52") + " s/it\n";
    if (i == 25) log += "        HW Thermal Slowdown               : Active\n";
  }
  EXPECT_EQ(run(log, 0).cls, "thermal_throttle");
  // The same slowdown with no throttle notice is healthy_slow... only when much slower.
  std::string slow;
  for (int i = 1; i <= 40; ++i)
    slow += "step " + std::to_string(i * 10) + "/400 | loss " + std::to_string(5.0 / i) + " | " + (i > 20 ? "2.60" : "0.52") + " s/it\n";
  EXPECT_EQ(run(slow, 0).cls, "healthy_slow");
}

TEST(Progress, DataWaitDominatingIsUnderutilized) {
  const std::string log = repeat(30, [](int i) {
    return "step " + std::to_string(i * 20) + " loss " + std::to_string(8.0 / i) + " step_time 1.00s data_time 0.90s\n";
  });
  EXPECT_EQ(run(log, 0).cls, "underutilized");
}

TEST(Hang, SilenceBeforeTheTimeLimitIsAHang) {
  const std::string log = "step 10 loss 2.0\nstep 20 loss 1.5\n";
  RunStatus st = exit_status(-15, std::string("TIMEOUT"));
  st.seconds_silent_before_end = 3 * 3600;
  const Verdict v = builtin().classify_text(log, st);
  EXPECT_EQ(v.cls, "hang");
  EXPECT_TRUE(has_secondary(v, "timeout"));
  // Still printing progress when the limit came: a timeout, never a crash.
  st.seconds_silent_before_end = 5;
  EXPECT_EQ(builtin().classify_text(log, st).cls, "timeout");
}

TEST(Hang, LogTimeStampsShowTheSilence) {
  const std::string log =
      "[2026-02-22 18:30:28] iteration 310/1000 | lm loss: 2.1\n"
      "[2026-02-22 18:30:34] iteration 320/1000 | lm loss: 2.0\n"
      "slurmstepd: error: *** JOB 42 ON gpu059 CANCELLED AT 2026-02-22T22:50:21 DUE TO TIME LIMIT ***\n";
  EXPECT_EQ(run(log, -15).cls, "hang");
  const std::string ontime =
      "[2026-02-22 22:50:10] iteration 310/1000 | lm loss: 2.1\n"
      "slurmstepd: error: *** JOB 42 ON gpu059 CANCELLED AT 2026-02-22T22:50:21 DUE TO TIME LIMIT ***\n";
  EXPECT_EQ(run(ontime, -15).cls, "timeout");
}

TEST(Events, XidDuringTheRunIsHardwareWithTheNumberCited) {
  RunStatus st = exit_status(1);
  st.events_collected = true;
  st.start_time_us = 1'000'000'000'000'000;
  st.end_time_us = st.start_time_us.value() + 3'600'000'000;
  st.events.push_back({st.start_time_us.value() + 60'000'000, "journal",
                       "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."});
  const Verdict v = builtin().classify_text("RuntimeError: CUDA error: unspecified launch failure\n", st);
  EXPECT_EQ(v.cls, "gpu_hardware");
  EXPECT_EQ(v.attribution, "infra");
  bool cited = false;
  for (const auto& s : v.shows) cited |= s.find("Xid 79") != std::string::npos;
  EXPECT_TRUE(cited) << to_text_for_test(v);
}

TEST(Events, PreExistingXidIsOnlyAFlag) {
  RunStatus st = exit_status(1);
  st.events_collected = true;
  st.start_time_us = 1'000'000'000'000'000;
  st.events.push_back({st.start_time_us.value() - 86'400'000'000LL, "journal", "NVRM: Xid (PCI:0000:3b:00): 48, pid=77, DBE"});
  const Verdict v = builtin().classify_text("Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'\n", st);
  EXPECT_EQ(v.cls, "traceback");
  EXPECT_TRUE(has_secondary(v, "gpu_hardware"));
}

TEST(Events, ApplicationXidIsNotHardware) {
  RunStatus st = exit_status(1);
  st.events_collected = true;
  st.events.push_back({0, "journal", "NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, Graphics Exception"});
  const Verdict v = builtin().classify_text("RuntimeError: CUDA error: an illegal memory access was encountered\n", st);
  EXPECT_EQ(v.cls, "cuda_runtime");
}

TEST(Events, OomKillerRecordNamingTheJobTurnsSigkillIntoOomKiller) {
  RunStatus st = exit_status(-9);
  st.events_collected = true;
  st.pids = {4343};
  const std::string log = "step 1 loss 3.0\nstep 2 loss 2.9\n";
  EXPECT_EQ(builtin().classify_text(log, st).cls, "signal_kill");
  st.events.push_back({0, "journal", "Out of memory: Killed process 4343 (python3) total-vm:123kB, anon-rss:100kB"});
  const Verdict v = builtin().classify_text(log, st);
  EXPECT_EQ(v.cls, "oom_killer");
  // Another process's OOM kill is not the job's.
  st.events.back().text = "Out of memory: Killed process 999 (java) total-vm:1kB";
  EXPECT_EQ(builtin().classify_text(log, st).cls, "signal_kill");
  // A child the wrapper never saw (python under a batch shell): matched by its owner...
  st.uid = 1000;
  st.events.back().text = "Memory cgroup out of memory: Killed process 999 (python3) total-vm:1kB, UID:1000 pgtables:1kB";
  EXPECT_EQ(builtin().classify_text(log, st).cls, "oom_killer");
  // ...or by a cgroup that holds only the job, whoever owns it.
  st.events.back().text = "oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/slurm/uid_0/job_42,task_memcg=/slurm/uid_0/job_42/step_0/task_0,task=python3,pid=999,uid=0";
  EXPECT_EQ(builtin().classify_text(log, st).cls, "signal_kill");
  st.cgroup_marks = {"/job_42"};
  EXPECT_EQ(builtin().classify_text(log, st).cls, "oom_killer");
  st.cgroup_marks = {"/job_4"};  // a prefix of another job's id is not this job
  EXPECT_EQ(builtin().classify_text(log, st).cls, "signal_kill");
}

// A kern.log grows for months: only its newest 64 MiB are read, so a record at the start
// of a huge file is out of reach while one at its end is found, in bounded memory.
TEST(Events, AHugeKernelLogFileIsReadFromItsNewestPart) {
  namespace ev = gpualert::events;
  const auto path = std::filesystem::temp_directory_path() / ("gpualert-huge-kern-" + std::to_string(::getpid()) + ".log");
  const auto now = ev::Clock::now();
  const std::time_t t = ev::Clock::to_time_t(now);
  char iso[40];
  std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S+00:00", std::gmtime(&t));
  {
    std::ofstream out(path, std::ios::binary);
    out << iso << " n1 kernel: NVRM: Xid (PCI:0000:01:00): 48, pid=1, DBE\n";
    const std::string chatter = std::string(iso) + " n1 kernel: EXT4-fs (sda1): re-mounted. Opts: (null)\n";
    for (std::size_t n = 0; n < (65u << 20); n += chatter.size()) out << chatter;
    out << iso << " n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=2, GPU has fallen off the bus.\n";
  }
  ev::EventSources src;
  src.journal = false;
  src.kmsg = false;
  src.files.push_back(path);
  const auto evs = ev::read_kernel_events(now - std::chrono::minutes(1), now + std::chrono::minutes(1), src);
  std::filesystem::remove(path);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].xid, 79);
}

TEST(Events, RingBufferRecordsParsing) {
  namespace ev = gpualert::events;
  const auto zero = ev::Clock::time_point(std::chrono::seconds(1'700'000'000));
  const auto evs = ev::parse_kmsg(
      "6,1001,5140900,-;NET: Registered protocol family 10\n"
      "3,1002,269516977,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n"
      " SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n"
      "6,1003,270000000,c;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/slurm/job_7,task_memcg=/slurm/job_7/step_0,task=python3,pid=55,uid=1000\n"
      "3,1004,270000100,-;Memory cgroup out of memory: Killed process 55 (python3) total-vm:9kB, UID:1000 pgtables:1kB\n"
      "garbage without a header\n",
      "kmsg", zero);
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].kind, ev::Kind::xid);
  EXPECT_EQ(evs[0].xid, 79);
  EXPECT_EQ(evs[0].source, "kmsg");
  EXPECT_EQ(evs[0].time, zero + std::chrono::microseconds(269516977));
  EXPECT_EQ(evs[1].kind, ev::Kind::oom_kill);
  EXPECT_EQ(evs[1].cgroup, "/slurm/job_7/step_0");
  EXPECT_EQ(evs[1].uid, 1000);
  EXPECT_EQ(evs[1].pid, 55);
  EXPECT_EQ(evs[2].uid, 1000);
  EXPECT_EQ(evs[2].pid, 55);
}

TEST(Events, KernelLogTextParsing) {
  namespace ev = gpualert::events;
  const auto boot = ev::Clock::time_point(std::chrono::seconds(1'700'000'000));
  const auto evs = ev::parse_kernel_log(
      "2026-11-22T05:00:00.250000+00:00 node1 kernel: NVRM: Xid (PCI:0000:87:00): 48, pid=9912, DBE\n"
      "[  269.516977] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
      "[  300.000000] usb 1-1: new device\n"
      "[  301.000000] Memory cgroup out of memory: Killed process 4242 (python) total-vm:1kB\n",
      "file:test", boot);
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].kind, ev::Kind::xid);
  EXPECT_EQ(evs[0].xid.value_or(-1), 48);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(evs[0].time.time_since_epoch()).count(), 1795323600250LL);
  EXPECT_EQ(evs[1].kind, ev::Kind::fallen_off_bus);
  EXPECT_EQ(evs[1].time, boot + std::chrono::microseconds(269516977));
  EXPECT_EQ(evs[2].kind, ev::Kind::oom_kill);
  EXPECT_EQ(evs[2].pid.value_or(-1), 4242);
  EXPECT_EQ(ev::xid_info(79).blame, ev::XidBlame::hardware);
  EXPECT_EQ(ev::xid_info(13).blame, ev::XidBlame::application);
  EXPECT_EQ(ev::xid_info(31).blame, ev::XidBlame::application);
  EXPECT_EQ(ev::xid_info(99999).blame, ev::XidBlame::unknown);
}

// dmesg -T prints the node's local time in ctime's fixed width; a single-digit day is
// space-padded.
TEST(Events, DmesgHumanTimeStampsAreRead) {
  namespace ev = gpualert::events;
  const char* old_tz = std::getenv("TZ");
  const std::string saved = old_tz ? old_tz : "";
  ::setenv("TZ", "CET-1", 1);  // one hour east of UTC, no summer time
  ::tzset();
  const auto evs = ev::parse_kernel_log(
      "[Sun Nov 29 04:53:03 2026] NVRM: Xid (PCI:0000:87:00): 79, pid=9912, GPU has fallen off the bus.\n"
      "[Thu Nov  5 10:00:00 2026] Memory cgroup out of memory: Killed process 4242 (python) total-vm:1kB\n",
      "file:test", std::nullopt);
  if (old_tz) ::setenv("TZ", saved.c_str(), 1);
  else ::unsetenv("TZ");
  ::tzset();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].xid.value_or(-1), 79);
  EXPECT_EQ(ev::Clock::to_time_t(evs[0].time), 1795924383);  // 2026-11-29T03:53:03Z
  EXPECT_EQ(evs[1].kind, ev::Kind::oom_kill);
  EXPECT_EQ(ev::Clock::to_time_t(evs[1].time), 1793869200);  // 2026-11-05T09:00:00Z
  EXPECT_EQ(evs[1].pid.value_or(-1), 4242);
}

TEST(Events, FileSourceHonoursTheWindow) {
  namespace ev = gpualert::events;
  const std::string path = ::testing::TempDir() + "/kern.log";
  {
    std::ofstream f(path);
    f << "2026-11-22T05:00:00+00:00 n kernel: NVRM: Xid (PCI:0000:87:00): 79, pid=1, GPU has fallen off the bus.\n"
         "2026-11-22T07:00:00+00:00 n kernel: NVRM: Xid (PCI:0000:87:00): 94, pid=2, Contained ECC error\n";
  }
  ev::EventSources src;
  src.journal = false;
  src.files = {path};
  const auto from = ev::Clock::time_point(std::chrono::seconds(1795323600 + 3600));  // 06:00
  const auto to = from + std::chrono::hours(2);
  const auto evs = ev::read_kernel_events(from, to, src);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].xid.value_or(-1), 94);
}

TEST(StartupFamilies, SettingValidationIsConfigError) {
  EXPECT_EQ(run("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                "ValueError: dropout probability has to be between 0 and 1, but got 1.5\n",
                1)
                .cls,
            "config_error");
  EXPECT_EQ(run("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                "ValueError: too many values to unpack (expected 2)\n",
                1)
                .cls,
            "traceback");
}

}  // namespace
}  // namespace gpualert::classify::test
