// The done-but-bad checks through the classifier: each finds its class, and their
// documented precedence decides when two would (correctness before throughput; the
// throughput checks need a real exit status).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

std::string steps_with(const std::string& extra_every_step, int n = 12) {
  std::string out;
  for (int i = 1; i <= n; ++i)
    out += "step " + std::to_string(i) + " loss " + std::to_string(3.0 / i) + extra_every_step + "\n";
  return out;
}

TEST(DoneButBad, CorrectnessComesBeforeThroughput) {
  // A rising loss and CUDA_LAUNCH_BLOCKING=1: the loss is the verdict.
  std::string log = "CUDA_LAUNCH_BLOCKING=1\n";
  for (int i = 1; i <= 12; ++i) log += "step " + std::to_string(i) + " loss " + std::to_string(1.0 + i) + "\n";
  EXPECT_EQ(run(log, 0).cls, "divergence");
  EXPECT_EQ(run("CUDA_LAUNCH_BLOCKING=1\n" + steps_with(""), 0).cls, "throughput_bound");
}

TEST(DoneButBad, ThroughputNeedsARealExitStatus) {
  const std::string log = "CUDA_LAUNCH_BLOCKING=1\n" + steps_with("") + "Training complete.\n";
  EXPECT_EQ(run(log, 0).cls, "throughput_bound");
  EXPECT_EQ(run(log, std::nullopt).cls, "healthy") << "a pasted log's own end line says nothing of its timings";
}

TEST(DoneButBad, DataWaitIsSeenInAnyStretchOnlyWhenItDominates) {
  const std::string starved = steps_with(" step_time: 1.00s data_time: 0.90s");
  EXPECT_EQ(run(starved, 0).cls, "underutilized");
  EXPECT_EQ(run(starved, std::nullopt).cls, "underutilized");
  const std::string half = steps_with(" step_time: 1.00s data_time: 0.55s");
  EXPECT_EQ(run(half, 0).cls, "underutilized");
  EXPECT_NE(run(half, std::nullopt).cls, "underutilized");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(DoneButBad, ALossThatFellThenRoseSteadilyIsDiverging) {
  // An early spike does not hide it: the low, then a steady climb to the end.
  std::string log = "iteration 1 | lm loss: 1.244238E+01\niteration 2 | lm loss: 4.812000E+01\n";
  for (int i = 3; i <= 30; ++i) log += "iteration " + std::to_string(i) + " | lm loss: " + std::to_string(40.0 - i) + "\n";
  for (int i = 31; i <= 62; ++i)
    log += "iteration " + std::to_string(i) + " | lm loss: " + std::to_string(11.0 + 0.3 * (i - 30) + (i % 4 == 0 ? -0.2 : 0)) + "\n";
  const Verdict v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "divergence") << to_text_for_test(v);
  bool says_rise = false;
  for (const auto& s : v.shows) says_rise |= s.find("then rose in") != std::string::npos;
  EXPECT_TRUE(says_rise) << to_text_for_test(v);
  // Noise around a falling trend is no rise.
  std::string noisy;
  for (int i = 1; i <= 80; ++i)
    noisy += "iteration " + std::to_string(i) + " | lm loss: " + std::to_string(5.0 / (1 + 0.05 * i) + (i % 3) * 0.2) + "\n";
  EXPECT_EQ(run(noisy, 0).cls, "healthy");
}

TEST(DoneButBad, ACoarselyPrintedLossThatConvergedIsNotFrozen) {
  std::string log;
  for (int i = 1; i <= 30; ++i) log += "{'loss': " + std::to_string(10.5 - 0.2 * i).substr(0, 4) + ", 'epoch': 0." + std::to_string(i) + "}\n";
  for (int i = 0; i < 8; ++i) log += "{'loss': 4.2, 'grad_norm': 0.4" + std::to_string(i) + ", 'epoch': 0.9}\n";
  EXPECT_EQ(run(log, 0).cls, "healthy");
  // Printed to more digits, eight identical values are frozen weights.
  std::string frozen;
  for (int i = 1; i <= 30; ++i) frozen += "{'loss': " + std::to_string(10.5 - 0.2 * i) + "}\n";
  for (int i = 0; i < 8; ++i) frozen += "{'loss': 4.213571}\n";
  EXPECT_EQ(run(frozen, 0).cls, "divergence");
}

TEST(DoneButBad, ASecondTrainingRunInTheSameLogIsJudgedOnItsOwn) {
  // Model A converges to 0.001; model B then trains from 1.9 down to 0.9: no divergence.
  std::string log;
  for (int e = 1; e <= 20; ++e) log += "Epoch " + std::to_string(e) + "/20 - loss: " + std::to_string(0.4 / e) + "\n";
  for (int e = 1; e <= 10; ++e) log += "Epoch " + std::to_string(e) + "/10 - loss: " + std::to_string(1.9 - 0.1 * e) + "\n";
  const Verdict v = run(log, 0);
  EXPECT_EQ(v.cls, "healthy") << to_text_for_test(v);
  bool names_runs = false;
  for (const auto& s : v.shows) names_runs |= s.find("last of 2 training runs") != std::string::npos;
  EXPECT_TRUE(names_runs) << to_text_for_test(v);
  // "Best at epoch 1" is no new run.
  std::string best;
  for (int e = 1; e <= 20; ++e) best += "Epoch " + std::to_string(e) + "/20 - loss: " + std::to_string(0.4 / e) + "\n";
  best += "best checkpoint was epoch 1\n";
  for (const auto& s : run(best, 0).shows) EXPECT_EQ(s.find("training runs"), std::string::npos) << s;
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

// print(epoch, loss): a counter and one unnamed number. Turning non-finite for good after
// finite values is nan_loss; finite values alone, a counter that goes back, or a named
// loss beside them say nothing.
TEST(NanLoss, AnUnnamedPerEpochValueThatTurnsNonFiniteIsNanLoss) {
  auto series = [](int finite, int nan, int from = 0) {
    std::string s;
    for (int e = from; e < from + finite + nan; ++e)
      s += "*****  " + std::to_string(e) + "\n" + std::to_string(e) + " " + (e < from + finite ? std::to_string(250.5 - e) : "nan") + " *****\n";
    return s + "Early stopping triggered!\n";
  };
  const Verdict v = run(series(10, 5), std::nullopt);
  EXPECT_EQ(v.cls, "nan_loss");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("5 in a row") != std::string::npos; }));
  EXPECT_NE(run(series(10, 0), std::nullopt).cls, "nan_loss");
  EXPECT_NE(run(series(10, 2), std::nullopt).cls, "nan_loss");                       // two are no streak
  EXPECT_NE(run(series(10, 5) + series(4, 0), std::nullopt).cls, "nan_loss");        // a new run, finite
  EXPECT_NE(run("loss 0.5\nloss 0.4\nloss 0.3\n" + series(10, 5), 0).cls, "nan_loss");  // a named loss leads
  EXPECT_NE(run("1 2\n2 nan\n3 nan\n4 nan\n", std::nullopt).cls, "nan_loss");        // no measured values first
}

// Records of several named metrics, none called loss ("avg_rd", "cur_mse", "bpp"): most of
// them turning non-finite to the last record is nan_loss; one non-finite metric among many,
// a single such record, or a run that recovers is not.
TEST(NanLoss, RecordsWhoseMetricsMostlyTurnNonFiniteAreNanLoss) {
  auto record = [](int step, bool nan, bool one_nan = false) {
    auto v = [&](double x) { return nan ? std::string("nan") : std::to_string(x); };
    return "Epoch [0/200], Step [" + std::to_string(step) + "/4039]: [ avg_rd: " + v(14.4) + " | cur_rd: " + v(3.02) +
           " | avg_mse: " + v(0.01) + " | avg_bpp: " + (one_nan ? std::string("nan") : v(0.38)) +
           " | avg_psnr: " + v(21.6) + " | iter_time: 1.19 s/it\n";
  };
  std::string ok;
  for (int s = 10; s <= 100; s += 10) ok += record(s, false);
  const Verdict v = run(ok + record(110, true) + record(120, true), std::nullopt);
  EXPECT_EQ(v.cls, "nan_loss");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(),
                          [](const std::string& s) { return s.find("5 of the 6 metrics") != std::string::npos; }));
  EXPECT_NE(run(ok + record(110, true), std::nullopt).cls, "nan_loss");                      // one record
  EXPECT_NE(run(ok + record(110, true) + record(120, true) + record(130, false), std::nullopt).cls, "nan_loss");
  EXPECT_NE(run(ok + record(110, false, true) + record(120, false, true), std::nullopt).cls, "nan_loss");
  EXPECT_NE(run(record(110, true) + record(120, true), std::nullopt).cls, "nan_loss");       // nothing finite first
}

TEST(NanLoss, ANonFiniteEvaluationLossIsNanLoss) {
  std::string log;
  for (int i = 1; i <= 6; ++i) log += "{'loss': " + std::to_string(2.0 / i) + ", 'epoch': " + std::to_string(i) + "}\n";
  log += "{'eval_loss': nan, 'eval_runtime': 12.1, 'epoch': 3.0}\n{'eval_loss': nan, 'eval_runtime': 12.0, 'epoch': 6.0}\n";
  EXPECT_EQ(run(log, std::nullopt).cls, "nan_loss");
  EXPECT_EQ(run(log, 0).cls, "nan_loss");
  // A finite evaluation loss changes nothing.
  std::string fine;
  for (int i = 1; i <= 6; ++i) fine += "{'loss': " + std::to_string(2.0 / i) + ", 'epoch': " + std::to_string(i) + "}\n";
  EXPECT_EQ(run(fine + "{'eval_loss': 0.91, 'epoch': 6.0}\n", 0).cls, "healthy");
}

// Shapes met in public8's development half (public8 scored 6 of 13 blind on arrival).
TEST(AnyShape, JsonRecordsWithAStepOfATotalAndASuffixedLossReachTheirEnd) {
  std::string log = "steps: 200\n";
  for (int s = 20; s <= 200; s += 20)
    log += "{\"step\": " + std::to_string(s) + ", \"of\": 200, \"loss_lm\": " + std::to_string(2.0 - s / 200.0) +
           ", \"tok_s\": 43000.5}\n";
  log += "sft done, steps: 200\n";
  const Verdict v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "healthy") << v.shows.front();
  EXPECT_EQ(run("step 30 of 400 loss 1.2\nstep 400 of 400 loss 0.4\n", 0).cls, "healthy");
}

TEST(AnyShape, NonFiniteRewardsAndLogitsOfAPreferenceRunAreNanLoss) {
  std::string log;
  for (int i = 1; i <= 6; ++i)
    log += "{'loss': 0.0, 'learning_rate': 0.0005, 'rewards/chosen': nan, 'rewards/margins': nan, "
           "'logps/chosen': nan, 'logits/chosen': nan, 'epoch': " + std::to_string(i * 0.1) + "}\n";
  EXPECT_EQ(run(log, 0).cls, "nan_loss");
  EXPECT_NE(run("{'loss': 0.5, 'rewards/chosen': 0.31, 'logits/chosen': -2.5}\n", 0).cls, "nan_loss");
}

TEST(AnyShape, ASettingOutsideItsListIsAConfigError) {
  const std::string log =
      "Traceback (most recent call last):\n  File \"train.py\", line 55, in main\n    elm = Model(cfg)\n"
      "ValueError: Model name 'None' not found in TOKEN_MAP_DICT. Available models: ['a/b-1B', 'c/d-4b']\n";
  EXPECT_EQ(run(log, 1).cls, "config_error");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

// A tqdm bar record: "desc  p%|bar| n/N [MM:SS<00:00, R s/it]".
std::string bar(const std::string& desc, int n, int total, int elapsed_s, double rate) {
  char clock[16];
  std::snprintf(clock, sizeof clock, "%02d:%02d", elapsed_s / 60, elapsed_s % 60);
  return desc + " " + std::to_string(100 * n / total) + "%|#####| " + std::to_string(n) + "/" + std::to_string(total) +
         " [" + clock + "<00:00, " + std::to_string(rate) + "s/it]";
}

// Shapes met in public8's development half (scored blind on arrival first).
TEST(AnyShape, ATrainingBarAtItsFullCountIsTheRunsEndAndItsSlowingStepsAreHealthySlow) {
  std::string steady, slowing;
  for (int n = 1; n <= 40; ++n) {
    steady += bar("", n, 40, n * 2, 2.0) + "\n";
    slowing += bar("", n, 40, n * 2, n <= 12 ? 2.0 : 9.0) + "\n";
  }
  EXPECT_EQ(run(steady, std::nullopt).cls, "healthy");
  EXPECT_EQ(run(slowing, std::nullopt).cls, "healthy_slow");
  // Cut before the bar's end, the same slowdown is no verdict on the run.
  EXPECT_NE(run(slowing.substr(0, slowing.find(" 38/40")), std::nullopt).cls, "healthy_slow");
}

// A "time" that grew at every epoch is the run's elapsed clock; only a per-epoch time
// that grew says the run slowed down.
TEST(AnyShape, AnElapsedClockPrintedEachEpochIsNoStepTime) {
  std::string clock, per_epoch;
  for (int e = 1; e <= 12; ++e) {
    const std::string head = "Epoch " + std::to_string(e) + "/12 - loss: " + std::to_string(3.0 / e) + " - time: ";
    clock += head + std::to_string(e * 600) + "s\n";
    per_epoch += head + std::to_string(e <= 4 ? 600 : 1900) + "s\n";
  }
  clock += "Training finished.\n";
  per_epoch += "Training finished.\n";
  EXPECT_EQ(run(clock, std::nullopt).cls, "healthy");
  EXPECT_EQ(run(clock, 0).cls, "healthy");
  EXPECT_EQ(run(per_epoch, 0).cls, "healthy_slow");
}

// The time an epoch took, under the names people print it with, is the run's pace.
TEST(AnyShape, AnEpochTimeThatGrewIsASlowdown) {
  for (const std::string name : {"time/epoch=", "epoch_time: ", "epoch time "}) {
    std::string log;
    for (int e = 1; e <= 12; ++e)
      log += "Epoch " + std::to_string(e) + "/12: loss=" + std::to_string(1.0 / e) + " " + name +
             std::to_string(e <= 5 ? 60 : 210) + "s\n";
    log += "Training complete\n";
    EXPECT_EQ(run(log, std::nullopt).cls, "healthy_slow") << name;
  }
}

// A vertical key | value table (Stable-Baselines3's logger): the loss row is read.
TEST(AnyShape, AVerticalKeyValueTableGivesItsLoss) {
  std::string log;
  for (int it = 1; it <= 20; ++it)
    log += "-----------------------------\n| train/             |          |\n|    loss            | " +
           std::to_string(3.0 / it) + "    |\n|    total_timesteps | " + std::to_string(it * 2048) + "   |\n";
  log += "-----------------------------\n";
  const auto v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
}

// "total loss is 3.01": a loss stated in a sentence is read like one after a colon.
TEST(AnyShape, ALossStatedInASentenceIsRead) {
  std::string log;
  const double values[] = {3.2, 3.0, 2.9, 2.8, 1.7e13, 2.1e13, 2.3e13};
  for (int i = 0; i < 7; ++i)
    log += "epoch 0, total_step " + std::to_string(100 * (i + 1)) + ", total loss is " + std::to_string(values[i]) +
           " , lr is 0.0003\n";
  EXPECT_EQ(run(log, std::nullopt).cls, "divergence");
}

// Hugging Face Trainer's closing metrics alone: run time x steps per second is the run's
// length, and seven steps is a handful.
TEST(AnyShape, TheClosingMetricsAloneGiveTheStepsTaken) {
  const std::string head = "{'train_runtime': ";
  const std::string tail = ", 'train_loss': 2.13, 'epoch': 1.0}\n";
  EXPECT_EQ(run(head + "5.8012, 'train_samples_per_second': 1.207, 'train_steps_per_second': 1.207" + tail, std::nullopt).cls,
            "undertrained");
  EXPECT_NE(run(head + "5801.2, 'train_samples_per_second': 9.656, 'train_steps_per_second': 1.207" + tail, std::nullopt).cls,
            "undertrained");
}

TEST(AnyShape, LoadingAndNestedEvaluationBarsCountNoStepAndTimeNone) {
  // Fast weight-loading and evaluation bars around a steady training bar: no slowdown.
  std::string log;
  for (int n = 1; n <= 20; ++n) log += bar("Loading checkpoint shards:", n, 20, 0, 0.01) + "\n";
  for (int n = 1; n <= 40; ++n) {
    log += bar("", n, 40, n * 2, 2.0) + "\n";
    if (n % 10 == 0) log += bar("", 5, 5, 1, 0.2) + "\x1b[A\n";
  }
  EXPECT_EQ(run(log, std::nullopt).cls, "healthy");
  EXPECT_EQ(run(log, 0).cls, "healthy");
}

TEST(AnyShape, OneSlowStepInEveryFewIsALoaderThatCannotKeepUp) {
  std::string starved, uneven;
  int t = 0, u = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int n = 0; n <= 28; ++n) {
      if (n > 0) t += n % 4 == 1 ? 40 : 1;
      if (n > 0) u += n == 13 ? 40 : 1;  // one long step: a checkpoint, not a rhythm
      starved += bar("Rank 0 Training:", n, 28, t, 10.0) + "\r";
      uneven += bar("Rank 0 Training:", n, 28, u, 10.0) + "\r";
    }
    starved += "\n";
    uneven += "\n";
  }
  const Verdict v = run(starved, std::nullopt);
  EXPECT_EQ(v.cls, "underutilized");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("one step in every 4"), std::string::npos) << v.shows.front();
  EXPECT_NE(run(uneven, std::nullopt).cls, "underutilized");
}

// The same rhythm in step times the program prints itself, one line per step.
TEST(AnyShape, PrintedStepTimesShowTheLoadersRhythmToo) {
  std::string starved, steady, sparse;
  for (int n = 1; n <= 30; ++n) {
    const std::string head = "Epoch: 1/30, Step: " + std::to_string(n) + "/951, Loss: " + std::to_string(3.25 - 0.01 * n);
    starved += head + ", Time/step: " + (n % 3 == 1 ? "45.1" : "4.2") + "\n";
    steady += head + ", Time/step: " + (n % 3 == 1 ? "4.4" : "4.2") + "\n";
    // Every tenth step printed: the times are not one step's each, so no rhythm is read.
    if (n % 3 == 1) sparse += "Epoch: 1/30, Step: " + std::to_string(n * 10) + "/951, Loss: 3.1, Time/step: " + (n % 2 ? "45.1" : "4.2") + "\n";
  }
  const Verdict v = run(starved, std::nullopt);
  EXPECT_EQ(v.cls, "underutilized");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("whose times were printed"), std::string::npos) << v.shows.front();
  EXPECT_NE(run(steady, std::nullopt).cls, "underutilized");
  EXPECT_NE(run(sparse, std::nullopt).cls, "underutilized");
}

TEST(AnyShape, ACounterThatIsNotTheTrainingsIsNoHandfulOfSteps) {
  // "Step 1" of a notebook's exercise list, then a hundred Keras epochs.
  std::string log = "Step 1\n";
  for (int e = 1; e <= 100; ++e)
    log += "Epoch " + std::to_string(e) + "/100\n469/469 - 0s - 1ms/step - loss: " + std::to_string(1.0 / e) + "\n";
  EXPECT_NE(run(log + "Training complete.\n", std::nullopt).cls, "undertrained");
}

TEST(AnyShape, APeerResetInsideTheRendezvousIsTheRendezvous) {
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py\", "
      "line 113, in _call_store\n    return getattr(self._store, store_op)(*args, **kwargs)\n"
      "RuntimeError: Connection reset by peer\n";
  EXPECT_EQ(run(log, 1).cls, "rendezvous");
  EXPECT_EQ(run("Traceback (most recent call last):\n  File \"train.py\", line 9, in step\n    loss.backward()\n"
                "RuntimeError: Connection reset by peer\n", 1).cls, "nccl");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(PastedLog, AWarningThatNamesACauseIsTheLeadOfALogThatNeverTrained) {
  const std::string warning =
      "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:124: UserWarning: CUDA initialization: The NVIDIA driver "
      "on your system is too old (found version 11000).\n";
  const Verdict v = run(warning, std::nullopt);
  EXPECT_EQ(v.cls, "env_mismatch");
  EXPECT_FALSE(v.cannot_decide.empty());
  // The job trained on after it: the warning ended nothing.
  std::string trained = warning;
  for (int i = 1; i <= 12; ++i) trained += "step " + std::to_string(i) + " loss " + std::to_string(3.0 / i) + "\n";
  EXPECT_NE(run(trained, std::nullopt).cls, "env_mismatch");
  // It lived on into distributed set-up and stopped there: a hang, not the warning.
  EXPECT_EQ(run(warning + "node1:77:77 [0] NCCL INFO Init COMPLETE\nnode1:77:77 [0] NCCL INFO Connected all rings\n"
                          "node1:77:77 [0] NCCL INFO Connected all trees\n",
                std::nullopt).cls,
            "hang");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(AnyShape, ASurrogateLossAroundZeroThatMovesByItsNoiseIsNoDivergence) {
  // A GRPO run: the policy loss scatters around zero, drifting by less than its scatter,
  // while the reward climbs.
  std::string grpo;
  auto scatter = [](int i) { return (i % 2 ? 0.01 : -0.01) * ((i % 5) + 1) / 5.0; };  // -0.01 .. +0.01
  for (int i = 1; i <= 100; ++i)
    grpo += "{'loss': " + std::to_string(-0.003 + 0.002 * i / 100.0 + scatter(i)) + ", 'reward': " + std::to_string(0.1 + i / 50.0) +
            ", 'epoch': " + std::to_string(i / 100.0) + "}\n";
  grpo += "{'train_runtime': 3600.0, 'train_loss': 0.0012, 'epoch': 1.0}\n";
  EXPECT_EQ(run(grpo, std::nullopt).cls, "healthy");
  // A loss that really climbs, far beyond its scatter, still is.
  std::string rising;
  for (int i = 1; i <= 100; ++i)
    rising += "{'loss': " + std::to_string(1.0 + i / 50.0 + scatter(i)) + ", 'epoch': " +
              std::to_string(i / 100.0) + "}\n";
  EXPECT_EQ(run(rising + "{'train_runtime': 3600.0, 'train_loss': 2.0, 'epoch': 1.0}\n", std::nullopt).cls, "divergence");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(AnyShape, AnAccuracyPinnedAtChanceAfterTheRunHadLearnedIsDivergence) {
  std::string log;
  for (int e = 1; e <= 20; ++e)
    log += "epoch " + std::to_string(e) + " train loss: " + std::to_string(0.9 - 0.01 * e + 0.3 * std::sin(e * 1.7)) + "; train acc: " +
           (e <= 12 ? std::to_string(0.6 + e * 0.02) : std::string("0.5000")) + " val acc: " +
           (e <= 12 ? std::to_string(0.58 + e * 0.02) : std::string("0.5000")) + "\n";
  const Verdict v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "divergence");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("1/2"), std::string::npos) << v.shows.front();
  // Accuracy that stays well above chance, or only touches it, is no collapse.
  std::string fine;
  for (int e = 1; e <= 20; ++e)
    fine += "epoch " + std::to_string(e) + " train loss: " + std::to_string(1.0 / e) + "; val acc: " +
            std::to_string(e == 3 ? 0.5 : 0.6 + e * 0.01) + "\n";
  EXPECT_EQ(run(fine, std::nullopt).cls, "healthy");
}

std::string lm_run(double spike, double settle) {
  // 200 values: down from 11 to 4.5 by value 120, then a spike and where it settles.
  std::string log;
  for (int i = 0; i < 200; ++i) {
    double v = i < 120 ? 11.0 - 6.5 * i / 120.0 : i < 130 ? spike : settle;
    v += (i % 2 ? 0.05 : -0.05);
    log += "Iter " + std::to_string(i * 6) + "/8200. train loss : " + std::to_string(v) + "\n";
  }
  return log;
}

TEST(AnyShape, ASpikeTheLossNeverCameBackFromIsDivergenceAndTheCancelOnlyHowItEnded) {
  // The spike undoes more than half of what was learned (11 -> 4.5), the end a fifth.
  const std::string bad = lm_run(9.0, 6.0);
  EXPECT_EQ(run(bad + "Training is done.\n", std::nullopt).cls, "divergence");
  const std::string stopped = bad + "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                                    "    loss.backward()\nKeyboardInterrupt\n";
  const Verdict v = run(stopped, std::nullopt);
  EXPECT_EQ(v.cls, "divergence");
  bool cancel_said = false;
  for (const auto& f : v.secondary) cancel_said = cancel_said || f.cls == "cancelled";
  EXPECT_TRUE(cancel_said);
  // A spike it recovered from is healthy; a healthy run stopped by hand is a cancel.
  EXPECT_EQ(run(lm_run(9.0, 4.4) + "Training is done.\n", std::nullopt).cls, "healthy");
  EXPECT_EQ(run(lm_run(4.4, 4.3) + "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                                   "    loss.backward()\nKeyboardInterrupt\n",
                std::nullopt).cls,
            "cancelled");
}

TEST(AnyShape, AConvergedLossThatWobblesAtItsFloorUndidNothing) {
  std::string log;
  for (int i = 0; i < 240; ++i) {
    const double v = i < 200 ? 2.4 * std::exp(-i / 30.0) + 0.005 : 0.02;
    log += "Epoch: 001 | Batch " + std::to_string(i) + " | Loss: " + std::to_string(v + (i % 2 ? 0.001 : 0)) + "\n";
  }
  EXPECT_NE(run(log + "Training complete.\n", std::nullopt).cls, "divergence");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

std::string trainer_log(int total, const std::vector<double>& losses) {
  std::string log;
  for (std::size_t i = 0; i < losses.size(); ++i)
    log += "{\"current_steps\": " + std::to_string((i + 1) * total / losses.size()) + ", \"total_steps\": " +
           std::to_string(total) + ", \"loss\": " + std::to_string(losses[i]) + ", \"lr\": 5e-05}\n";
  return log;
}

// Shapes met in public12's development half (LLaMA-Factory's trainer_log.jsonl and a
// plain "Iteration N/M, Loss, Grad Norm" print), scored blind on arrival first.
TEST(AnyShape, ALossOfExactlyZeroStraightAfterARealOneIsNonFinite) {
  std::vector<double> zeroed = {122.14};
  for (int i = 0; i < 20; ++i) zeroed.push_back(0.0);
  EXPECT_EQ(run(trainer_log(210, zeroed), std::nullopt).cls, "nan_loss");
  // A loss that came down to a small value and printed 0 at the end converged.
  std::vector<double> converged;
  for (int i = 0; i < 20; ++i) converged.push_back(i < 17 ? 2.0 / (1 << i) : 0.0);
  EXPECT_NE(run(trainer_log(200, converged), std::nullopt).cls, "nan_loss");
}

TEST(AnyShape, TheCurrentStepOfItsTotalInAJsonRecordIsARunsLength) {
  EXPECT_EQ(run(trainer_log(9, {3.34, 3.16, 2.96, 2.8, 2.7, 2.6, 2.5, 2.45, 2.4}), std::nullopt).cls, "undertrained");
  std::vector<double> full;
  for (int i = 0; i < 24; ++i) full.push_back(2.0 - i * 0.05);
  EXPECT_EQ(run(trainer_log(240, full), std::nullopt).cls, "healthy");
}

TEST(AnyShape, AGradientNormOfZeroAtEveryPrintIsNoLearningHoweverFewTheLosses) {
  const std::string log =
      "Iteration 0/10000, Loss: 10.2616, Grad Norm: 0.0000\nIteration 100/10000, Loss: 10.2341, Grad Norm: 0.0000\n"
      "Iteration 200/10000, Loss: 10.2131, Grad Norm: 0.0000\n";
  EXPECT_EQ(run(log, std::nullopt).cls, "divergence");
  std::string moving = log;
  for (const char* from : {"Norm: 0.0000\nIteration 1", "Norm: 0.0000\nIteration 2"})
    moving.replace(moving.find(from), 12, "Norm: 1.3000");
  EXPECT_NE(run(moving, std::nullopt).cls, "divergence");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

// A run that ended normally after a small share of the length it announced, with no
// early stopping to explain it, is undertrained; reaching its plan, or stopping early on
// purpose, is not.
TEST(Undertrained, EndingFarShortOfTheAnnouncedPlanIsUndertrained) {
  std::string two_of_100;
  for (int e = 1; e <= 2; ++e) two_of_100 += "Epoch " + std::to_string(e) + "/100 loss " + std::to_string(2.0 - 0.1 * e) + "\n";
  const Verdict v = run(two_of_100, 0);
  EXPECT_EQ(v.cls, "undertrained");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("epoch 2 of the 100") != std::string::npos; }));
  EXPECT_EQ(run("max_steps=10000\nstep 10 loss 1.9\nstep 20 loss 1.8\nstep 30 loss 1.7\nstep 40 loss 1.6\n", 0).cls, "undertrained");
  EXPECT_EQ(run("epochs=50\nEpoch 1 loss 1.9\nEpoch 2 loss 1.8\nTraining finished.\n", std::nullopt).cls, "undertrained");
  // Iteration-counted loops announce theirs as max_iters (nanoGPT, mmengine) or MAX_ITER (detectron2).
  for (const char* plan : {"Overriding: max_iters = 600000\n", "  MAX_ITER: 90000\n"}) {
    std::string iters = plan;
    for (int i = 1; i <= 5; ++i) iters += "iter " + std::to_string(i * 100) + ": loss " + std::to_string(4.0 - 0.3 * i) + "\n";
    EXPECT_EQ(run(iters, 0).cls, "undertrained") << plan;
  }
  // Early stopping is a planned way to end before the plan.
  EXPECT_NE(run(two_of_100 + "Early stopping: no improvement for 1 epochs\n", 0).cls, "undertrained");
  // Half the plan is no negligible share; a pasted log with no end says nothing of it.
  std::string half;
  for (int e = 1; e <= 50; ++e) half += "Epoch " + std::to_string(e) + "/100 loss " + std::to_string(2.0 / (1 + 0.1 * e)) + "\n";
  EXPECT_NE(run(half, 0).cls, "undertrained");
  EXPECT_NE(run(two_of_100, std::nullopt).cls, "undertrained");
}

// A handful of logged losses that reach no further than step 50: the run stopped a few
// log intervals in, however fast its loss was falling.
TEST(Undertrained, AHandfulOfLoggedStepsIsUndertrained) {
  auto logged = [](int n, int every) {
    std::string s = "params=17.62M\n";
    for (int i = 1; i <= n; ++i) s += "[sft] step=" + std::to_string(i * every) + " loss=" + std::to_string(6.0 - 0.7 * i) + "\n";
    return s + "sft done -> checkpoints/last.pt\n";
  };
  EXPECT_EQ(run(logged(4, 10), std::nullopt).cls, "undertrained");
  EXPECT_NE(run(logged(4, 100), std::nullopt).cls, "undertrained");  // 400 steps: no handful
  EXPECT_NE(run(logged(8, 5), 0).cls, "undertrained");               // eight logged values
  // Planned that short and done ("Step 50/50") trains no more.
  std::string demo;
  for (int i = 1; i <= 5; ++i) demo += "Step " + std::to_string(i * 10) + "/50 - Loss: " + std::to_string(2.0 - 0.1 * i) + "\n";
  EXPECT_EQ(run(demo + "Saved LoRA weights to out/\n", 0).cls, "undertrained");
}

// A run that ended within a few hundred steps with its loss barely down had no time to
// learn; the same loss that rose, sat at chance, fell clearly, or ran its announced
// length is another verdict.
TEST(Undertrained, AShortRunWhoseLossBarelyMovedIsUndertrained) {
  auto steps = [](double first, double per_step, int n, int every) {
    std::string s;
    for (int i = 1; i <= n; ++i) {
      char line[96];
      std::snprintf(line, sizeof line, "loss = %.5f, step = %d\n", first + per_step * i + (i % 2 ? 0.2 : -0.2), i * every);
      s += line;
    }
    return s + "Loss for final step: " + std::to_string(first + per_step * n) + ".\n";
  };
  const Verdict v = run(steps(22.8, -0.1, 12, 10), std::nullopt);
  EXPECT_EQ(v.cls, "undertrained");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("step 120") != std::string::npos; }));
  EXPECT_NE(run(steps(22.8, 0.1, 12, 10), 0).cls, "undertrained");      // it rose
  EXPECT_NE(run(steps(22.8, -0.5, 12, 10), 0).cls, "undertrained");     // it fell clearly
  EXPECT_NE(run(steps(22.8, -0.1, 12, 1000), 0).cls, "undertrained");   // 12000 steps: a plateau, not a short run
  EXPECT_NE(run(steps(1.40, -0.001, 12, 10), 0).cls, "undertrained");   // at ln 4: a model that cannot learn
  EXPECT_NE(run("max_steps=120\n" + steps(22.8, -0.1, 12, 10), 0).cls, "undertrained");  // its plan, done
  // Within fifty steps a loss up by less than a tenth is a run too short to judge.
  EXPECT_EQ(run(steps(22.8, 0.1, 12, 4), 0).cls, "undertrained");        // 48 steps, up about 5 %
  EXPECT_NE(run(steps(22.8, 0.5, 12, 4), 0).cls, "undertrained");        // up by a quarter: not noise
}

}  // namespace
}  // namespace gpualert::classify::test
