// The decision logic: root cause over symptom, exit status and scheduler state.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

const char* kMultiRankOom =
    "[rank0]: step 40 loss 3.12\n"
    "[rank1]: step 40 loss 3.15\n"
    "[rank2]: Traceback (most recent call last):\n"
    "[rank2]:   File \"train.py\", line 120, in <module>\n"
    "[rank2]:     loss.backward()\n"
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 2 has a total capacity of 39.39 GiB "
    "of which 1.10 GiB is free.\n"
    "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=311, "
    "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600312 milliseconds before timing out.\n"
    "[rank1]:[E ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=311, "
    "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600309 milliseconds before timing out.\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout\n"
    "[rank0]: RuntimeError: [Rank 0] NCCL communicator was aborted on rank 0.\n";

TEST(RootCause, MultiRankOomBeatsNcclTimeouts) {
  const Verdict v = run(kMultiRankOom, 1);
  EXPECT_EQ(v.cls, "cuda_oom");
  EXPECT_TRUE(has_secondary(v, "nccl"));
  // The OOM line is cited with its 1-based line number.
  bool cited = false;
  for (const auto& c : v.evidence) cited |= c.line == 6;
  EXPECT_TRUE(cited);
}

TEST(RootCause, NcclAloneIsNccl) {
  std::string log = kMultiRankOom;
  log.erase(log.find("[rank2]: Traceback"), log.find("[rank0]:[E") - log.find("[rank2]: Traceback"));
  EXPECT_EQ(run(log, 1).cls, "nccl");
}

TEST(RootCause, HardwareBeatsTheCudaErrorsItCauses) {
  const Verdict v = run(
      "RuntimeError: CUDA error: an illegal memory access was encountered\n"
      "NVRM: Xid (PCI:0000:87:00): 48, pid=9912, name=python, An uncorrectable double bit error (DBE) has been detected\n",
      1);
  EXPECT_EQ(v.cls, "gpu_hardware");
  EXPECT_TRUE(has_secondary(v, "cuda_runtime"));
  // An application-level Xid (13, 31, 43) alone is not hardware.
  EXPECT_EQ(run("NVRM: Xid (PCI:0000:87:00): 31, pid=9912, Ch 00000010, MMU Fault\n"
                "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                1)
                .cls,
            "cuda_runtime");
}

TEST(RootCause, ChainedExceptionReportsTheInnermostGenericCause) {
  const Verdict v = run(
      "Traceback (most recent call last):\n"
      "  File \"data.py\", line 10, in __getitem__\n"
      "    return self.index[key]\n"
      "KeyError: 'img_0042'\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 50, in <module>\n"
      "    batch = next(it)\n"
      "RuntimeError: Caught KeyError in DataLoader worker process 0.\n",
      1);
  EXPECT_EQ(v.cls, "traceback");
  bool cites_key_error = false;
  for (const auto& c : v.evidence) cites_key_error |= c.line == 4;
  EXPECT_TRUE(cites_key_error);
}

TEST(RootCause, SpecificOuterExceptionStillWins) {
  const Verdict v = run(
      "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    g()\nKeyError: 'x'\n\n"
      "The above exception was the direct cause of the following exception:\n\n"
      "Traceback (most recent call last):\n  File \"a.py\", line 9, in <module>\n    f()\n"
      "FileNotFoundError: [Errno 2] No such file or directory: '/data/x.bin'\n",
      1);
  EXPECT_EQ(v.cls, "file_not_found");
}

TEST(Signals, BareSigkillIsASuspectedOomKill) {
  // The taxonomy reads a bare SIGKILL as the OOM killer's, but only as a suspicion.
  const Verdict v = run("step 1 loss 2.0\nstep 2 loss 1.9\n", -9);
  EXPECT_EQ(v.cls, "oom_killer");
  EXPECT_LE(raw_confidence("step 1 loss 2.0\nstep 2 loss 1.9\n", -9), 0.4);
  bool says_why = false;
  for (const auto& c : v.cannot_decide) says_why |= c.find("kill -9") != std::string::npos;
  EXPECT_TRUE(says_why);
  bool plain = false;
  for (const auto& f : v.secondary) plain |= f.cls == "signal_kill";
  EXPECT_TRUE(plain);
  EXPECT_EQ(run("step 1 loss 2.0\nKilled\n", -9).cls, "oom_killer");
  EXPECT_EQ(run("step 1 loss 2.0\nKilled\n", std::nullopt).cls, "oom_killer");
  // Other signals keep their plain reading.
  EXPECT_EQ(run("step 1 loss 2.0\n", -15).cls, "signal_kill");
}

TEST(Signals, SigkillWithAKernelLogWithoutOomRecordIsNotOom) {
  RunStatus st;
  st.exit_code = -9;
  st.events_collected = true;  // the kernel log was read and had nothing
  EXPECT_EQ(builtin().classify_text("step 1 loss 2.0\nstep 2 loss 1.9\n", st).cls, "signal_kill");
  st.events.push_back({0, "file:dmesg", "Out of memory: Killed process 4242 (python) total-vm:100kB, anon-rss:90kB"});
  EXPECT_EQ(builtin().classify_text("step 1 loss 2.0\nstep 2 loss 1.9\n", st).cls, "oom_killer");
}

TEST(Signals, SigkillWithOomLineIsOomKiller) {
  EXPECT_EQ(run("step 1 loss 2.0\n[ 4821.5] Out of memory: Killed process 40822 (python) total-vm:8923144kB\nKilled\n", -9).cls,
            "oom_killer");
  EXPECT_EQ(run("step 1\nslurmstepd: error: StepId=15.0 exceeded memory limit (642785280 > 104857600), being killed\n", -9).cls,
            "oom_killer");
  EXPECT_EQ(run("step 1 loss 2.0\n", -9, "OUT_OF_MEMORY").cls, "oom_killer");
}

TEST(Signals, TorchrunSummaryCarriesTheChildSignal) {
  const Verdict v = run(
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
      "============================================================\n"
      "train.py FAILED\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  time      : 2024-05-01_10:00:00\n"
      "  host      : node3\n"
      "  rank      : 0 (local_rank: 0)\n"
      "  exitcode  : -11 (pid: 1234)\n"
      "  error_file: <N/A>\n"
      "  traceback : Signal 11 (SIGSEGV) received by PID 1234\n",
      1);
  EXPECT_EQ(v.cls, "segfault");
  EXPECT_EQ(run("  exitcode  : -9 (pid: 1234)\n  traceback : Signal 9 (SIGKILL) received by PID 1234\n", 1).cls, "oom_killer");
  EXPECT_EQ(run("  exitcode  : -7 (pid: 1234)\n  traceback : Signal 7 (SIGBUS) received by PID 1234\n", 1).cls, "signal_kill");
}

TEST(Signals, SigsegvExitWithoutLogIsSegfault) { EXPECT_EQ(run("loading\n", -11).cls, "segfault"); }

TEST(Signals, AbortWithBadAllocIsRamOom) {
  EXPECT_EQ(run("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n", -6).cls, "ram_oom");
  EXPECT_EQ(run("some output\n", -6).cls, "signal_kill");
}

TEST(Scheduler, TheFourDispositions) {
  const std::string pre = "step 5 loss 1.0\nslurmstepd: error: *** JOB 77 ON n1 CANCELLED AT 2024-01-01T00:00:00 ";
  EXPECT_EQ(run(pre + "DUE TO TIME LIMIT ***\n", std::nullopt).cls, "timeout");
  EXPECT_EQ(run(pre + "***\n", std::nullopt).cls, "cancelled");
  EXPECT_EQ(run(pre + "DUE TO PREEMPTION ***\n", std::nullopt).cls, "preempted");
  EXPECT_EQ(run(pre + "DUE TO NODE FAILURE ***\n", std::nullopt).cls, "node_fail");
  EXPECT_EQ(run("step 5 loss 1.0\n", 0, "TIMEOUT").cls, "timeout");
  EXPECT_EQ(run("step 5 loss 1.0\n", 0, "CANCELLED by 1000").cls, "cancelled");
  EXPECT_EQ(run("step 5 loss 1.0\n", 1, "NODE_FAIL").cls, "node_fail");
  EXPECT_EQ(run("step 5 loss 1.0\n", 0, "PREEMPTED").cls, "preempted");
}

TEST(Scheduler, ACrashBeforeTheTimeLimitWins) {
  const Verdict v = run(
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
      "[rank0]: step 100 loss 1.0\n"
      "slurmstepd: error: *** JOB 77 ON n1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n",
      0, "TIMEOUT");
  EXPECT_EQ(v.cls, "cuda_oom");
  EXPECT_TRUE(has_secondary(v, "timeout"));
}

TEST(Scheduler, ExceptionsAfterTheCancelAreConsequences) {
  const Verdict v = run(
      "step 5 loss 1.0\n"
      "slurmstepd: error: *** STEP 77.0 ON n1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n"
      "torch.distributed.elastic.multiprocessing.api.SignalException: Process 4411 got signal: 15\n"
      "RuntimeError: [Rank 0] NCCL communicator was aborted\n",
      std::nullopt);
  EXPECT_EQ(v.cls, "timeout");
}

TEST(Healthy, NeedsExitZero) {
  const std::string log = "step 1 loss 3.0\nstep 2 loss 2.5\nstep 3 loss 2.0\nstep 4 loss 1.5\nstep 5 loss 1.2\n";
  EXPECT_EQ(run(log, 0).cls, "healthy");
  EXPECT_EQ(run(log, 0, "COMPLETED").cls, "healthy");
  EXPECT_EQ(run(log, std::nullopt, "COMPLETED").cls, "healthy");
  EXPECT_EQ(run(log, 1).cls, "unknown");
  EXPECT_EQ(run(log, std::nullopt).cls, "unknown");
  EXPECT_EQ(run("", std::nullopt).cls, "unknown");
}

TEST(Healthy, NoFatalEvidence) {
  const std::string log = "step 1 loss 3.0\nstep 2 loss 2.0\nRuntimeError: CUDA error: an illegal memory access was encountered\n";
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "cuda_runtime");
  bool says_exit0 = false;
  for (const auto& c : v.cannot_decide) says_exit0 |= c.find("exited 0") != std::string::npos;
  EXPECT_TRUE(says_exit0);
  EXPECT_LT(v.confidence, run(log, 1).confidence);
}

TEST(Healthy, LossGoingUpIsNotHealthy) {
  const Verdict v = run("step 1 loss 1.0\nstep 2 loss 1.4\nstep 3 loss 2.2\nstep 4 loss 3.1\nstep 5 loss 4.8\n", 0);
  EXPECT_NE(v.cls, "healthy");
  EXPECT_EQ(v.cls, "divergence");
}

TEST(Healthy, ValidationLossDoesNotConfuseTheTrend) {
  const Verdict v = run(
      "step 1 loss 3.0\nval_loss: 9.0\nstep 2 loss 2.6\nval_loss: 9.5\nstep 3 loss 2.1\nval_loss: 9.9\nstep 4 loss 1.7\n", 0);
  EXPECT_EQ(v.cls, "healthy");
}

TEST(Healthy, RecoveredErrorIsSecondary) {
  const Verdict v = run(
      "Trying batch size 64\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB\n"
      "Retrying with batch size 32\n"
      "step 1 loss 3.0\nstep 2 loss 2.6\nstep 3 loss 2.1\nstep 4 loss 1.7\n",
      0);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_TRUE(has_secondary(v, "cuda_oom"));
}

TEST(Healthy, NanThatRecoversIsNotNanLoss) {
  EXPECT_EQ(run("step 1 loss 3.0\nstep 2 loss nan\nstep 3 loss 2.5\nstep 4 loss 2.1\nstep 5 loss 1.8\n", 0).cls, "healthy");
}

TEST(Warnings, AWarningIsNotACause) {
  const Verdict v = run(
      "UserWarning: Failed to load image Python extension: libc10_cuda.so: cannot open shared object file\n"
      "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout\n",
      1);
  EXPECT_EQ(v.cls, "nccl");
}

TEST(RootCause, AnEarlyShellComplaintDoesNotBeatTheFatalException) {
  const Verdict v = run(
      "mkdir: cannot create directory '/scratch/shared': Permission denied\n"
      "step 1 loss 2.0\n"
      "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    x = d['k']\nKeyError: 'k'\n",
      1);
  EXPECT_EQ(v.cls, "traceback");
  EXPECT_EQ(run("bash: ./train.sh: Permission denied\n", 126).cls, "permission");
  EXPECT_EQ(run("RuntimeError: open(/data/shard-07.bin): No such file or directory\n", 1).cls, "file_not_found");
}

TEST(Exec, ExecFailures) {
  RunStatus s;
  s.exit_code = 127;
  s.exec_failed = true;
  EXPECT_EQ(builtin().classify_text("gpualert: cannot execute 'pythonn': No such file or directory\n", s).cls, "missing_module");
  EXPECT_EQ(builtin().classify_text("gpualert: cannot execute './train.sh': No such file or directory\n", s).cls, "file_not_found");
  s.exit_code = 126;
  EXPECT_EQ(builtin().classify_text("gpualert: cannot execute './train.sh': Permission denied\n", s).cls, "permission");
  EXPECT_EQ(builtin().classify_text("", s).cls, "permission");
  EXPECT_EQ(run("/var/spool/slurmd/job1/slurm_script: line 9: torchrun: command not found\n", 127).cls, "missing_module");
}

// The anchor corpus begins every log with "[inject] mode=<label>": a label leak.
// Removing those lines must not change a single verdict.
TEST(LabelLeak, InjectHeaderChangesNothing) {
  const std::filesystem::path dir = std::filesystem::path(GPUALERT_ANCHOR_DIR) / "injected";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "anchor corpus not found at " << dir;
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string raw = ss.str();
    if (raw.rfind("[inject]", 0) != 0) continue;
    std::string stripped;
    std::istringstream lines(raw);
    for (std::string l; std::getline(lines, l);)
      if (l.rfind("[inject]", 0) != 0) stripped += l + "\n";
    for (std::optional<int> code : {std::optional<int>(1), std::optional<int>()}) {
      const Verdict a = run(raw, code), b = run(stripped, code);
      ASSERT_EQ(a.cls, b.cls) << e.path();
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
  // And the header alone decides nothing.
  EXPECT_EQ(run("[inject] mode=cuda_oom host=gpu041 pid=1\n", 1).cls, "unknown");
}

}  // namespace
}  // namespace gpualert::classify::test


namespace gpualert::classify::test {
namespace {
// A loss pinned at ln K is a model that predicts the uniform distribution; a loss that
// merely passes near ln K while falling is not.
TEST(DoneButBad, LossPinnedAtChanceLevelIsDivergence) {
  std::string pinned = "step 1 loss 0.9120\nstep 2 loss 0.7714\n";
  for (int i = 3; i <= 14; ++i) pinned += "step " + std::to_string(i) + " loss 0.6931\n";
  const Verdict v = run(pinned, 0);
  EXPECT_EQ(v.cls, "divergence");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("ln 2") != std::string::npos; }));
  EXPECT_EQ(run(pinned, std::nullopt).cls, "divergence");  // a pasted log: the loss alone decides
  std::string falling;
  for (int i = 1; i <= 14; ++i) falling += "step " + std::to_string(i) + " loss " + std::to_string(1.2 - 0.04 * i) + "\n";
  EXPECT_EQ(run(falling, 0).cls, "healthy");
  std::string other_plateau;  // flat, but not at ln K: not this rule (may still be "did not learn")
  for (int i = 1; i <= 14; ++i) other_plateau += "step " + std::to_string(i) + " loss 0.8000\n";
  const Verdict o = run(other_plateau, 0);
  EXPECT_FALSE(std::any_of(o.shows.begin(), o.shows.end(), [](const std::string& s) { return s.find("uniform guess") != std::string::npos; }));
  // Past twenty classes the round count is named: a loss pinned near 6.905 is ln 1000's, not ln 997's.
  std::string imagenet;
  for (int i = 1; i <= 12; ++i) imagenet += "Epoch: [11][" + std::to_string(1380 + i) + "/10000] Err 6.90" + std::to_string(45 + (i * 7) % 45) + "\n";
  const Verdict k = run(imagenet, 0);
  EXPECT_EQ(k.cls, "divergence");
  EXPECT_TRUE(std::any_of(k.shows.begin(), k.shows.end(), [](const std::string& s) { return s.find("ln 1000 = 6.908") != std::string::npos; }));
}

// A training loss that climbs epoch after epoch from its low, steadily, is divergence
// even when the climb is under half the low; the same climb in noise is not.
TEST(DoneButBad, ASteadyClimbFromTheLowIsDivergenceEvenWhenSmall) {
  std::string steady, noisy;
  for (int e = 1; e <= 52; ++e) {
    const double base = e <= 32 ? 2.07 + 5.0 / e : 2.073 + 0.023 * (e - 32);
    steady += "Epoch " + std::to_string(e) + " | train " + std::to_string(base) + " | val 2.6\n";
    // The same rise of about 20%, but with every other value falling back.
    const double wobble = e <= 32 ? 0 : (e % 2 ? 0.12 : -0.12);
    noisy += "Epoch " + std::to_string(e) + " | train " + std::to_string(base + wobble) + " | val 2.6\n";
  }
  const Verdict v = run(steady + "Early stopping at epoch 52\n", std::nullopt);
  EXPECT_EQ(v.cls, "divergence");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("then rose in") != std::string::npos; }));
  EXPECT_NE(run(noisy + "Early stopping at epoch 52\n", std::nullopt).cls, "divergence");
}

// Per-epoch prints are few: four epochs pinned at ln 4 after one that was not is a run
// that fell back to chance; a fresh model's first values at ln K are where training starts.
TEST(DoneButBad, FourEpochsPinnedAtChanceAfterLeavingItAreDivergence) {
  std::string collapsed = "TRAIN EPOCH 0:\nloss   1.356284\n";
  for (const char* v : {"1.386393", "1.386381", "1.386379", "1.386330"})
    collapsed += std::string("TRAIN EPOCH:\nloss   ") + v + "\n";
  const Verdict v = run(collapsed, std::nullopt);
  EXPECT_EQ(v.cls, "divergence");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) {
    return s.find("last 4 loss values") != std::string::npos && s.find("ln 4") != std::string::npos;
  }));
  std::string fresh;  // the first steps of a 4-class model: all at ln 4 from the start
  for (const char* x : {"1.386301", "1.386290", "1.386288", "1.386281", "1.386270"}) fresh += std::string("step loss ") + x + "\n";
  EXPECT_NE(run(fresh, std::nullopt).cls, "divergence");
  std::string loose = "loss 1.356\n";  // four values near ln 4 but moving: no collapse
  for (const char* x : {"1.3801", "1.3902", "1.3850", "1.3811"}) loose += std::string("loss ") + x + "\n";
  EXPECT_NE(run(loose, std::nullopt).cls, "divergence");
}

// The same loss to every printed digit, again and again: the weights stopped changing.
TEST(DoneButBad, AFrozenLossIsDivergenceButProgressBarRefreshesAreNot) {
  std::string frozen = "Epoch 1/20\n - 9s - loss: 5.7178 - acc: 0.6446\n";
  for (int e = 2; e <= 5; ++e) frozen += "Epoch " + std::to_string(e) + "/20\n - 8s - loss: 5.7257 - acc: 0.6448\n";
  EXPECT_EQ(run(frozen, 0).cls, "divergence");
  // tqdm shows one step's loss on every refresh of the bar: not a frozen loss.
  // (Written one refresh per line, as a log file that turned \r into \n holds them.)
  std::string bar;
  for (int i = 1; i <= 30; ++i) {
    const std::string l = std::to_string(2.0123 - 0.05 * i).substr(0, 6);
    bar += "train: " + std::to_string(i) + "/30 [00:01<00:00, 9.1it/s, loss=" + l + "]\n";
    bar += "train: " + std::to_string(i) + "/30 [00:01<00:00, 9.3it/s, loss=" + l + "]\n";
  }
  bar += "train: 30/30 [00:01<00:00, 9.3it/s, loss=0.5123]\n";
  EXPECT_EQ(run(bar, 0).cls, "healthy");
  // Coarse prints repeat by chance.
  std::string coarse;
  for (double v : {1.21, 1.02, 0.95, 0.90, 0.86, 0.83, 0.83, 0.83}) coarse += "step loss = " + std::to_string(v).substr(0, 4) + "\n";
  EXPECT_NE(run(coarse, 0).cls, "divergence");
}

// Settings that name steps are not steps taken: a Trainer header's "Total optimization
// steps = 1000" and "Gradient Accumulation steps = 1" must not read as step 1000 or 1.
TEST(DoneButBad, StepSettingsAreNotStepsTaken) {
  std::string log =
      "***** Running training *****\n  Num examples = 512\n  Gradient Accumulation steps = 1\n"
      "  Total optimization steps = 1000\n";
  for (int i = 0; i < 12; ++i)
    log += "{'loss': " + std::to_string(2.5 - 0.1 * i).substr(0, 5) + ", 'learning_rate': 1e-05, 'epoch': " +
           std::to_string(0.1 * i).substr(0, 4) + "}\n";
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "healthy");
  for (const auto& s : v.shows) EXPECT_EQ(s.find("training steps were reached"), std::string::npos) << s;
}

TEST(DoneButBad, StepsMostlyWaitingForDataAreUnderutilized) {
  std::string log;
  for (int i = 0; i < 100; i += 10)
    log += "Epoch: [0][" + std::to_string(i) + "/500]\tTime 1.210 (1.200)\tData 1.100 (1.090)\tLoss " +
           std::to_string(6.9 - 0.1 * i / 10) + " (6.91)\n";
  EXPECT_EQ(run(log, 0).cls, "underutilized");
  std::string busy;
  for (int i = 0; i < 100; i += 10)
    busy += "Epoch: [0][" + std::to_string(i) + "/500]\tTime 1.210 (1.200)\tData 0.010 (0.011)\tLoss " +
            std::to_string(6.9 - 0.1 * i / 10) + " (6.91)\n";
  EXPECT_NE(run(busy, 0).cls, "underutilized");
}

TEST(NoExitStatus, ALogEndingInsideNcclSetupIsASuspectedHang) {
  const std::string log =
      "epoch 0 starting\n"
      "node1:311:402 [0] NCCL INFO Channel 00/02 :    0   1\n"
      "node1:311:402 [0] NCCL INFO Connected all rings\n"
      "node1:311:402 [0] NCCL INFO Connected all trees\n";
  const Verdict v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "hang");
  EXPECT_LE(raw_confidence(log, std::nullopt), 0.35);
  // The same lines followed by an error are not a hang; with an exit status the timeline decides.
  EXPECT_NE(run(log + "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error\n", std::nullopt).cls,
            "hang");
  EXPECT_NE(run(log, 1).cls, "hang");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(Hang, QuietForLessThanTheJobsOwnPaceIsNoHang) {
  // One progress line every ~7 h; the time limit came 1h51m after the last one: a timeout.
  std::string slow;
  for (int e = 1; e <= 4; ++e)
    slow += "2024-04-0" + std::to_string(e) + " 0" + std::to_string(e) + ":00:00 EPOCH " + std::to_string(e) + " COMPLETED\n";
  slow += "2024-04-04 05:51:00 translation sample printed\n"
          "slurmstepd: error: *** JOB 7 ON c1 CANCELLED AT 2024-04-04T05:51:20 DUE TO TIME LIMIT ***\n";
  EXPECT_EQ(run(slow, std::nullopt).cls, "timeout");
  // The same quiet after progress every minute: the job had stopped.
  std::string fast;
  for (int m = 10; m <= 14; ++m) fast += "2024-04-04 04:" + std::to_string(m) + ":00 step " + std::to_string(m) + " loss 1.0\n";
  fast += "slurmstepd: error: *** JOB 8 ON c1 CANCELLED AT 2024-04-04T06:05:00 DUE TO TIME LIMIT ***\n";
  EXPECT_EQ(run(fast, std::nullopt).cls, "hang");
}

}  // namespace
}  // namespace gpualert::classify::test
