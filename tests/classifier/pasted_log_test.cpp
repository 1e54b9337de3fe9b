// Logs without an exit status (a pasted or copied log, as `gpualert classify` meets
// them): healthy needs the program's own end-of-run line, the announced length
// reached, or at least a loss that kept falling; never one without an error check.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

// SHAPE is a test's own printf format: one of a few training-output shapes.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string falling(int n, const char* shape, int total = 0) {
  std::string out;
  char line[128];
  for (int i = 1; i <= n; ++i) {
    std::snprintf(line, sizeof line, shape, i, total ? total : n, 2.0 / (1.0 + 0.3 * i) + 0.01 * (i % 3));
    out += line;
  }
  return out;
}
#pragma GCC diagnostic pop

bool cannot_decide_mentions(const Verdict& v, const std::string& what) {
  for (const auto& c : v.cannot_decide)
    if (c.find(what) != std::string::npos) return true;
  return false;
}

TEST(PastedLog, TheProgramsOwnEndOfRunLineMakesItHealthy) {
  for (const char* end : {"Training complete.", "2021-05-10 | INFO | fairseq_cli.train | done training in 4186.5 seconds",
                          "INFO - Evaluation completed. LSTM script finished successfully.",
                          "Early stopping at epoch 23 after 10 epochs without val_acc improvement."}) {
    const std::string log = falling(6, "epoch %d loss=%.4f\n") + end + "\n";
    const Verdict v = run(log, std::nullopt);
    EXPECT_EQ(v.cls, "healthy") << end;
    EXPECT_LT(raw_confidence(log, std::nullopt), raw_confidence(log, 0)) << "no exit status: weaker than exit 0";
    EXPECT_TRUE(cannot_decide_mentions(v, "No exit status")) << end;
  }
}

TEST(PastedLog, AnErrorStillWinsOverAnEndOfRunLine) {
  const Verdict v = run(falling(6, "epoch %d loss=%.4f\n") +
                            "Training complete.\nTraceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n"
                            "FileNotFoundError: [Errno 2] No such file or directory: 'best.pt'\n",
                        std::nullopt);
  EXPECT_EQ(v.cls, "file_not_found");
}

TEST(PastedLog, TheAnnouncedLengthReachedMakesItHealthy) {
  const Verdict v = run(falling(10, "Epoch: %d / %d  Training loss: %.4f\n"), std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_FALSE(cannot_decide_mentions(run(falling(6, "epoch %d of %d: loss %.4f\n"), std::nullopt), "stops while training"));
  bool cites_last_epoch = false;
  for (const auto& c : v.evidence) cites_last_epoch |= c.line == 10;
  EXPECT_TRUE(cites_last_epoch);
  // Stopped at epoch 3 of 10 with no end line: still the best reading, said to be unconfirmed.
  const Verdict early = run(falling(9, "Epoch: %d / %d  Training loss: %.4f\n", 40), std::nullopt);
  EXPECT_EQ(early.cls, "healthy");
  EXPECT_TRUE(cannot_decide_mentions(early, "stops while training still runs"));
  EXPECT_LT(early.confidence, v.confidence);
}

TEST(PastedLog, AFewLossValuesWithoutAnEndAreNotEnough) {
  EXPECT_EQ(run(falling(5, "epoch %d loss=%.4f\n"), std::nullopt).cls, "unknown");
}

TEST(PastedLog, ARisingLossIsNotHealthyEvenWhenItSaysItFinished) {
  std::string log;
  for (int i = 1; i <= 12; ++i) log += "step " + std::to_string(i) + " loss " + std::to_string(1.0 + 0.5 * i) + "\n";
  EXPECT_EQ(run(log + "Training finished.\n", std::nullopt).cls, "divergence");
}

TEST(PastedLog, AFinishedRunOfAHandfulOfPlannedStepsIsUndertrained) {
  const Verdict v = run("***** Running training *****\n  Total optimization steps = 4\n" +
                            falling(4, "step %d/%d loss %.4f\n") + "Training completed. Do not forget to share your model\n",
                        std::nullopt);
  EXPECT_EQ(v.cls, "undertrained");
}

TEST(PastedLog, RepeatedNonFiniteLossesAreTheLeadWithoutAnExitStatus) {
  std::string log = falling(10, "epoch %d loss=%.4f\n");
  for (int i = 0; i < 4; ++i) log += "Batch " + std::to_string(i * 100) + ", Loss: nan\n";
  log += falling(10, "epoch %d loss=%.4f\n");
  EXPECT_EQ(run(log, std::nullopt).cls, "nan_loss");
  EXPECT_EQ(run(log, 0).cls, "healthy") << "exit 0: the run got past them";
}

TEST(PastedLog, TheSlurmBannerStateNamesTheRealEnding) {
  const std::string log = falling(8, "epoch %d loss=%.4f\n");
  EXPECT_EQ(run(log, std::nullopt, "CANCELLED DUE TO TIME LIMIT").cls, "timeout");
  EXPECT_EQ(run(log, std::nullopt, "CANCELLED DUE TO PREEMPTION").cls, "preempted");
  EXPECT_EQ(run(log, std::nullopt, "CANCELLED DUE TO NODE FAILURE").cls, "node_fail");
  EXPECT_EQ(run(log, std::nullopt, "CANCELLED by 1002").cls, "cancelled");
  EXPECT_EQ(run(log, std::nullopt, "CANCELLED").cls, "cancelled");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(PastedLog, AStopMidRunWithOnlyTheDataLoaderWarningIsUnderutilized) {
  const std::string warn =
      "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will "
      "create 8 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller "
      "than what this DataLoader is going to create.\n";
  const std::string bars = "Epoch 1/20:   1%| | 10/1171 [00:15<24:59,  1.33s/it, loss=7.6643]\n"
                           "Epoch 1/20:   2%| | 20/1171 [00:29<24:58,  1.45s/it, loss=7.6657]\n";
  EXPECT_EQ(run(warn + bars, std::nullopt).cls, "underutilized");
  EXPECT_NE(run(warn + bars, 0).cls, "underutilized") << "exit 0: the warning alone is a suspicion";
  EXPECT_EQ(run(bars, std::nullopt).cls, "unknown");
}

// A paste that stops where the next epoch (or the evaluation between two) should have
// begun, far short of its plan, is read as a stall, with low confidence; one that stops
// inside a bar is as likely a snippet, and an exit status settles it either way.
TEST(PastedLog, AStopAtAnEpochBoundaryFarShortOfThePlanIsASuspectedHang) {
  const std::string epoch1 = "Epoch 1/40\n1000/1000 [==============================] - 1143s 1s/step - loss: 0.0176\n";
  const auto at_boundary = run(epoch1, std::nullopt);
  EXPECT_EQ(at_boundary.cls, "hang");
  EXPECT_LT(at_boundary.confidence, 0.5);
  EXPECT_EQ(run(epoch1 + "Epoch 2/40\n", std::nullopt).cls, "hang");
  EXPECT_NE(run(epoch1 + "Epoch 2/40\n 312/1000 [=====>........................] - ETA: 13:02 - loss: 0.0151\n", std::nullopt).cls,
            "hang")
      << "inside a bar";
  EXPECT_NE(run(epoch1, 0).cls, "hang") << "exit 0: it ended";
  EXPECT_NE(run("epoch 1/20 train_loss 0.6512\nepoch 2/20 train_loss 0.6012\n", std::nullopt).cls, "hang")
      << "a record that closes an epoch with its figures is where any paste of the first epochs stops";
  std::string planned;
  for (int e = 1; e <= 40; ++e) planned += "Epoch " + std::to_string(e) + "/40\n1000/1000 [====] - 9s - loss: " + std::to_string(1.0 / e) + "\n";
  EXPECT_EQ(run(planned, std::nullopt).cls, "healthy") << "the plan reached";
}

TEST(PastedLog, ALossAtItsStartingLevelEarlyInThePlanIsNoDivergence) {
  // ln 2310 = 7.745: a uniform guess over 2310 classes, in the first 3% of epoch 1 of 20.
  std::string early;
  for (int i = 1; i <= 12; ++i)
    early += "Epoch 1/20:   " + std::to_string(i / 4) + "%| | " + std::to_string(i * 3) + "/1171 [00:" + std::to_string(10 + i) +
             "<24:59,  1.33s/it, loss=7.745" + std::to_string(i % 2) + "]\n";
  EXPECT_NE(run(early, std::nullopt).cls, "divergence");
  // Frozen to every printed digit is a verdict however early.
  std::string frozen = "Epoch 1/100\n89595/89595 [====] - 9s - loss: 5.7178 - acc: 0.6446\n";
  for (int e = 2; e <= 6; ++e)
    frozen += "Epoch " + std::to_string(e) + "/100\n89595/89595 [====] - 8s - loss: 5.7257 - acc: 0.6448\n";
  EXPECT_EQ(run(frozen, std::nullopt).cls, "divergence");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(PastedLog, AQuietThatEndsOnTheProgramsOwnEndLineIsNoHang) {
  std::string log;
  for (int e = 1; e <= 10; ++e)
    log += "2023-01-01 10:" + std::string(e < 10 ? "0" : "") + std::to_string(e) + ":00 | INFO | train | epoch " +
           std::to_string(e) + " | loss " + std::to_string(8 - e * 0.4) + "\n";
  // Fifty minutes of final evaluation and saving, then the program's own end line.
  EXPECT_EQ(run(log + "2023-01-01 11:00:00 | INFO | fairseq_cli.train | done training in 3201.5 seconds\n", std::nullopt).cls,
            "healthy");
  // The same quiet ending on a line that is no end of the run is a hang.
  EXPECT_EQ(run(log + "2023-01-01 11:00:00 | INFO | heartbeat\n", std::nullopt).cls, "hang");
}

}  // namespace
}  // namespace gpualert::classify::test

namespace gpualert::classify::test {
namespace {

TEST(PastedLog, FrameworksOwnEndLinesAreEndsOfRun) {
  const std::string few = "Epoch [1/3], Loss: 1.2000\nEpoch [2/3], Loss: 0.9000\n";
  EXPECT_NE(run(few, std::nullopt).cls, "healthy") << "two losses and no end say nothing";
  for (const char* end : {"[10/28 14:31:02 d2.engine.hooks]: Overall training speed: 89998 iterations in 10:43:12 (0.43 s / it)",
                          "[10/28 14:31:02 d2.engine.hooks]: Total training time: 10:50:41 (0:07:29 on hooks)",
                          "INFO:tensorflow:Loss for final step: 0.1234.", "100 epochs completed in 0.712 hours.",
                          "Training took 1234.5 seconds", "*** Best metric: 80.1 (epoch 299)", "Reached max_steps, stopping",
                          "Restoring model weights from the end of the best epoch: 12.", "Optimization Finished!",
                          "Training is over.", "finish training", "Done!", "All done.",
                          "Process finished with exit code 0"})
    EXPECT_EQ(run(few + end + "\n", std::nullopt).cls, "healthy") << end;
  // A step's own end inside a longer line, or an IDE's failure code, is no end of the run.
  for (const char* not_end : {"Saving checkpoint... done.", "Process finished with exit code 1", "Loading data: Done!"})
    EXPECT_NE(run(few + not_end + "\n", std::nullopt).cls, "healthy") << not_end;
}

// A counter that starts at "step 0/45" reaches its announced end at "step 44/45"; the
// loss may be printed as an nll.
TEST(PastedLog, ACounterFromZeroReachesItsEndOneEarly) {
  std::string log;
  for (int i = 0; i < 45; ++i)
    log += "epoch " + std::to_string(i / 15) + " step " + std::to_string(i) + "/45 lr=1.0e-04 nll=" +
           std::to_string(0.5 / (1 + i)) + "\n";
  const Verdict v = run(log, std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_FALSE(cannot_decide_mentions(v, "no announced length reached"));
  // The same counter stopped one step short of its end is no end.
  EXPECT_TRUE(cannot_decide_mentions(run(log.substr(0, log.rfind("epoch 2 step 44")), std::nullopt),
                                     "no announced length reached"));
}

// "train loss(phase): 0.0163" per epoch, then the program's own stop sentence.
TEST(PastedLog, AQualifiedLossAndAStopSentenceEndTheRun) {
  const std::string log = falling(12, "epoch: %d of %d train loss(phase): %.4f test accu(phase): 0.80\n");
  const Verdict v = run(log + "[Stop Condition Met] Train loss is below the best. Stopping training.\n", std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_GE(v.confidence, 0.9);
}

// A program that logs at INFO level what it tried and did without ("Unable to initialize
// backend 'tpu': ... libtpu.so: cannot open shared object file") was not stopped by it.
TEST(PastedLog, AnInfoLineIsNarrationNotTheCause) {
  const std::string info =
      "INFO:2026-06-03 03:08:57,858:jax._src.xla_bridge:925: Unable to initialize backend 'tpu': INTERNAL: Failed to "
      "open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory\n";
  const std::string tb =
      "Traceback (most recent call last):\n  File \"scripts/train.py\", line 212, in main\n    x = f()\n"
      "KeyError: 'action_dim'\n";
  EXPECT_EQ(run(info + tb, std::nullopt).cls, "traceback");
  EXPECT_EQ(run("03:08:57.858 [I] Unable to initialize backend 'tpu': libtpu.so: cannot open shared object file\n" + tb,
                std::nullopt).cls, "traceback");
  // The same line at error level is the cause.
  EXPECT_EQ(run("ERROR: libtpu.so: cannot open shared object file: No such file or directory\n", std::nullopt).cls,
            "missing_module");
}

// An output folder that is already there, with the flag the program asks for.
TEST(PastedLog, AnOutputFolderThatExistsIsASetting) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    main()\n";
  EXPECT_EQ(run(tb + "FileExistsError: Checkpoint directory /ckpt/run1 already exists. Use --overwrite or --resume to "
                     "indicate how to handle it.\n", std::nullopt).cls,
            "config_error");
  EXPECT_EQ(run(tb + "ValueError: Output directory (out/) already exists and is not empty. Use --overwrite_output_dir to "
                     "overcome.\n", std::nullopt).cls,
            "config_error");
  EXPECT_NE(run(tb + "FileExistsError: [Errno 17] File exists: '/data/cache'\n", std::nullopt).cls, "config_error");
}

// A run that never says "finished" but whose program visibly ended: one test-set result
// after training, or the shell's time report; neither when it is only a pause mid-run.
TEST(PastedLog, ATestResultOnceAtTheEndOrTheShellsTimeReportEndsTheRun) {
  const std::string train = falling(2, "epoch %d of %d: train loss :: %.3f, train acc :: 0.41\n");
  const Verdict tested = run(train + "load model from best.pt\ndev acc :: 0.391\ntest acc :: 0.390\n", std::nullopt);
  EXPECT_EQ(tested.cls, "healthy");
  ASSERT_FALSE(tested.evidence.empty());
  EXPECT_EQ(tested.evidence.front().text, "test acc :: 0.390");
  // A test result after every epoch, cut off mid-run, is no end.
  std::string per_epoch;
  for (int e = 1; e <= 3; ++e) per_epoch += falling(2, "batch %d/%d train loss :: %.3f\n") + "Test accuracy: 0.8" + std::to_string(e) + "\n";
  EXPECT_EQ(run(per_epoch, std::nullopt).cls, "unknown");
  // A loop that prints only its epoch counter and validation figures, then a summary.
  std::string val_only;
  for (int e = 190; e <= 199; ++e) val_only += "Epoch " + std::to_string(e) + ": Cos img: 4.21, loss val: 5.56\n";
  EXPECT_EQ(run(val_only + "The best epoch is: 94\nThe test Top1-0.170000, Top5-0.445000\n", std::nullopt).cls, "healthy");
  EXPECT_EQ(run(val_only, std::nullopt).cls, "unknown");
  // With no training before it, a test result ends nothing.
  EXPECT_EQ(run("load model from best.pt\ntest acc :: 0.390\n", std::nullopt).cls, "unknown");

  const std::string timed = falling(4, "step %d, loss = %.2f (9134.5 examples/sec)\n") + "\nreal\t2m50.690s\nuser\t9m45.761s\nsys\t1m10.234s\n";
  const Verdict ended = run(timed, std::nullopt);
  EXPECT_EQ(ended.cls, "healthy");
  EXPECT_TRUE(cannot_decide_mentions(ended, "No exit status"));
  // The report after an error is the error's.
  EXPECT_EQ(run(falling(4, "step %d, loss = %.2f\n") + "RuntimeError: CUDA error: an illegal memory access was encountered\n"
                    "real\t0m5.1s\n", std::nullopt).cls,
            "cuda_runtime");
}

// The total may be a setting ("epochs=5", "--num_epochs 5", "max_steps=500") and the
// counter a bare "Epoch 5": reaching the setting is reaching the announced end.
TEST(PastedLog, ASettingsAnnouncedLengthReachedByBareCountersEndsTheRun) {
  const std::string five = falling(5, "[Epoch %d] loss=%.4f\n");
  for (const char* setting : {"Namespace(batch_size=32, epochs=5, lr=0.001)", "python train.py --num_epochs 5 --lr 1e-3",
                              "{'max_epochs': 5, 'lr': 0.001}", "  Num Epochs = 5"}) {
    const Verdict v = run(std::string(setting) + "\n" + five, std::nullopt);
    EXPECT_EQ(v.cls, "healthy") << setting;
    EXPECT_FALSE(cannot_decide_mentions(v, "stops while training still runs")) << setting;
  }
  // Counted from 0: epoch 4 is the fifth.
  std::string from_zero = "epochs=5\n";
  for (int e = 0; e < 5; ++e) from_zero += "Epoch " + std::to_string(e) + " loss " + std::to_string(2.0 / (1 + e)) + "\n";
  EXPECT_EQ(run(from_zero, std::nullopt).cls, "healthy");
  EXPECT_EQ(run("epochs=6\n" + from_zero.substr(from_zero.find('\n') + 1), std::nullopt).cls, "unknown");
  // Five of twenty, or a setting that names other epochs, is no end.
  EXPECT_EQ(run("epochs=20\n" + five, std::nullopt).cls, "unknown");
  EXPECT_EQ(run("warmup_epochs=5\n" + five, std::nullopt).cls, "unknown");
  EXPECT_EQ(run("max_steps=500\n" + falling(5, "step %d00: loss %.4f\n"), std::nullopt).cls, "healthy");
  EXPECT_EQ(run("max_steps=5000\n" + falling(5, "step %d00: loss %.4f\n"), std::nullopt).cls, "unknown");
}

// TensorFlow probes for optional libraries at its W level; a run that trained past that
// probe was not stopped by it. A failed op at the same level still counts.
TEST(PastedLog, TensorFlowsWarningLevelProbesAreNotTheCause) {
  const std::string probe =
      "2023-01-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
      "library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory\n";
  EXPECT_EQ(run(probe + falling(10, "Epoch %d/%d - loss: %.4f\n"), std::nullopt).cls, "healthy");
  EXPECT_EQ(run("2023-01-01 10:00:00.000000: W tensorflow/core/framework/op_kernel.cc:1767] OP_REQUIRES failed at "
                "save_restore_v2_ops.cc:109 : Permission denied: /ckpt/model.ckpt-100_temp; Permission denied\n",
                1).cls,
            "permission");
}

// A '|'-separated record with a counter may name its loss by the split alone; a closing
// "done in 236s" ends the run.
TEST(PastedLog, ALossNamedByItsSplitAloneIsTheTrainingLoss) {
  std::string log = "train 564,597 tokens | val 62,732 tokens | vocab 126\n";
  for (int s = 0; s <= 1000; s += 100)
    log += "step " + std::to_string(s) + " | train " + std::to_string(4.8 / (1 + s / 200.0)) + " | val " +
           std::to_string(4.9 / (1 + s / 250.0)) + " | lr 1.00e-04 | " + std::to_string(s / 8) + "s\n";
  const Verdict v = run(log + "\ndone in 236s | best val loss 1.4429\n", std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_FALSE(cannot_decide_mentions(v, "stops while training still runs"));
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("loss went from") != std::string::npos; }));
  // Without a counter on the line, "train 4.8" is not read as a loss.
  EXPECT_EQ(run("train 4.8 | val 4.9\ntrain 3.1 | val 3.3\ntrain 2.5 | val 2.8\ntrain 2.0 | val 2.4\n"
                "train 1.8 | val 2.2\ntrain 1.6 | val 2.1\ntrain 1.5 | val 2.0\ntrain 1.4 | val 1.9\n", std::nullopt).cls,
            "unknown");
}

// After a series named "train loss", a line that opens with an evaluation split holds
// that split's loss: "Test set results: loss 0.903" is no jump of the training loss.
TEST(PastedLog, AnEvaluationSplitsPlainLossIsNotTheTrainingSeries) {
  std::string log;
  for (int e = 1490; e < 1500; ++e)
    log += "Epoch " + std::to_string(e) + ": train loss 0.1" + std::to_string(e % 7) + " train acc: 0.96, val loss: 1.06\n";
  const std::string end = "--------\nVali set results: loss 1.005, acc 0.742.\nTest set results: loss 0.903, acc 0.765.\n";
  EXPECT_EQ(run(log + end, std::nullopt).cls, "healthy");
  // Where no series is named for training, such lines are the only losses there are.
  std::string evals;
  for (int i = 0; i < 10; ++i) evals += "Test set: Average loss: " + std::to_string(1.0 + 0.3 * i) + ", Accuracy: 50%\n";
  EXPECT_EQ(run(evals, std::nullopt).cls, "divergence");
}

// "[Loss] nan" in a bracketed record; Keras stopping a fit whose data ran out.
TEST(PastedLog, ABracketedLossAndAFitWhoseInputRanOut) {
  std::string log = "E5 iter[ 14/ 15] | [Loss] 51566519.44 | [step]    89\n";
  for (int e = 6; e <= 10; ++e) log += "E" + std::to_string(e) + " iter[ 14/ 15] | [Loss] nan | [step]   " + std::to_string(e * 15) + "\n";
  EXPECT_EQ(run(log, std::nullopt).cls, "nan_loss");
  const Verdict v = run("Epoch 1/50\n97/10000 [....] - ETA: 1:08:14 - loss: 3.3150WARNING:tensorflow:Your input ran out of data; "
                        "interrupting training. Make sure that your dataset can generate at least `steps_per_epoch * epochs` "
                        "batches.\nEpoch 00001: saving model to ./snapshots/model_01.h5\n",
                        std::nullopt);
  EXPECT_EQ(v.cls, "undertrained");
}

// A learning rate decayed to its schedule's end (linear or cosine to zero) is the run's
// planned end; a step or exponential decay never reaches it, nor does a decay cut midway.
TEST(PastedLog, ALearningRateDecayedToItsScheduleEndEndsTheRun) {
  auto hf = [](const std::vector<double>& lrs) {
    std::string s;
    for (std::size_t i = 0; i < lrs.size(); ++i)
      s += "{'loss': " + std::to_string(1.2 / static_cast<double>(i + 1)) + ", 'learning_rate': " + std::to_string(lrs[i]) +
           ", 'epoch': " + std::to_string(50 * (i + 1)) + ".0}\n";
    return s;
  };
  const Verdict v = run(hf({8.4e-5, 6.7e-5, 5.0e-5, 3.4e-5, 1.7e-5, 3.3e-7}), std::nullopt);
  EXPECT_EQ(v.cls, "healthy");
  EXPECT_TRUE(std::any_of(v.shows.begin(), v.shows.end(), [](const std::string& s) { return s.find("schedule's end") != std::string::npos; }));
  EXPECT_NE(run(hf({8.4e-5, 6.7e-5, 5.0e-5, 3.4e-5, 1.7e-5}), std::nullopt).cls, "healthy");          // midway
  EXPECT_NE(run(hf({1e-3, 1e-3, 1e-4, 1e-4, 1e-5, 1e-5}), std::nullopt).cls, "healthy");              // step decay
  EXPECT_NE(run(hf({1e-3, 9.5e-4, 9.0e-4, 2.0e-5, 1.9e-5, 1.8e-5}), std::nullopt).cls, "healthy");   // exponential
}

}  // namespace
}  // namespace gpualert::classify::test
