// The fast path (the matcher picks the lines to read; long steady stretches of progress
// are thinned) must reach the verdicts of the reference path (every line read with RE2).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/verdict_format.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

const Classifier& reference() {
  static Classifier c = [] {
    auto x = Classifier::with_builtin_rules();
    x.set_reference_scan(true);
    return x;
  }();
  return c;
}

TEST(FastPath, EveryBuiltinRuleIsTakenByTheMatcher) {
  ASSERT_TRUE(builtin().build_fast_matcher());
  EXPECT_TRUE(builtin().engine_notes().empty()) << builtin().engine_notes().front();
}

// Every log we have, with and without an exit status: the same verdict, to the byte.
TEST(FastPath, SameVerdictsAsTheReferenceOnEveryCorpusLog) {
  ASSERT_TRUE(builtin().build_fast_matcher());  // corpus logs are small: without it they would be read line by line
  std::vector<fs::path> logs = logs_under(GPUALERT_CORPUS_DIR);
  for (const auto& p : logs_under(GPUALERT_REAL_LOGS_DIR)) logs.push_back(p);
  for (const auto& p : logs_under(GPUALERT_ANCHOR_DIR)) logs.push_back(p);
  ASSERT_GT(logs.size(), 500u);
  std::size_t differ = 0;
  for (const auto& p : logs) {
    for (std::optional<int> code : {std::optional<int>(), std::optional<int>(1)}) {
      const auto fast = to_json(builtin().classify_file(p, exit_status(code))).dump(1);
      const auto ref = to_json(reference().classify_file(p, exit_status(code))).dump(1);
      if (fast != ref && ++differ <= 3) ADD_FAILURE() << p << "\n--- fast\n" << fast << "\n--- reference\n" << ref;
    }
  }
  EXPECT_EQ(differ, 0u) << "of " << logs.size() * 2 << " classifications";
}

// A line the matcher would see differently from RE2 (typographic quotes, progress-bar
// redraws, CRLF, a rank prefix, NUL bytes) is still read as the reference reads it.
TEST(FastPath, SameVerdictsOnAwkwardLines) {
  ASSERT_TRUE(builtin().build_fast_matcher());
  const std::vector<std::string> logs = {
      "epoch 1\r 10%|#  | 1/10 [00:01<00:09]\rRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
      "Traceback (most recent call last):\r\n  File \"t.py\", line 3, in <module>\r\nKeyError: \xE2\x80\x98model\xE2\x80\x99\r\n",
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory.\n[rank3]: Tried to allocate\n",
      std::string("step 5 loss 1.0\n\0\0binary\xff\xfe\nSegmentation fault (core dumped)\n", 61),
      "==> train.log: srun #0, node n1, task 3 <==\nNCCL WARN Connect to 10.0.0.2 failed\n",
  };
  for (const auto& log : logs) {
    const auto fast = to_json(builtin().classify_text(log, exit_status(1))).dump(1);
    const auto ref = to_json(reference().classify_text(log, exit_status(1))).dump(1);
    EXPECT_EQ(fast, ref) << log;
  }
}

// The matcher reads bytes, RE2 reads UTF-8: a rule that names a word of another script
// or an accented letter (a loss word, an end-of-training sentence, a full-width colon)
// must still select its lines. Long enough for the fast path to be taken.
TEST(FastPath, SameVerdictsInOtherLanguages) {
  ASSERT_TRUE(builtin().build_fast_matcher());
  // HEAD, the epoch number, MID, the loss: N lines, then END.
  auto run = [](const std::string& head, const std::string& mid, int n, const std::string& end) {
    std::string log;
    for (int i = 1; i <= n; ++i) log += head + std::to_string(i) + mid + std::to_string(3.0 / i + 0.1) + '\n';
    return log + end + '\n';
  };
  const std::vector<std::string> logs = {
      run("\xC3\x89poca ", " - p\xC3\xA9rdida: ", 40, "entrenamiento finalizado"),
      run("\xC3\xA9poque ", " perte = ", 40, "entra\xC3\xAEnement termin\xC3\xA9"),
      run("\xE7\xAC\xAC ", " \xE8\xBD\xAE \xE6\x8D\x9F\xE5\xA4\xB1\xEF\xBC\x9A", 40,
          "\xE8\xBF\x9B\xE7\xA8\x8B\xE5\xB7\xB2\xE7\xBB\x93\xE6\x9D\x9F\xEF\xBC\x8C\xE9\x80\x80\xE5\x87\xBA\xE4\xBB\xA3\xE7\xA0\x81\xE4\xB8\xBA 0"),
      run("pas ", " | pierdere ", 40, "antrenare terminat\xC4\x83"),
      run("Epoch ", " - Loss Discriminator: ", 40, "Training abgeschlossen"),
  };
  for (const auto& log : logs) {
    const auto fast = to_json(builtin().classify_text(log, exit_status(std::nullopt))).dump(1);
    const auto ref = to_json(reference().classify_text(log, exit_status(std::nullopt))).dump(1);
    EXPECT_EQ(fast, ref) << log;
  }
}

// A long log whose middle is thinned: what matters there is still found exactly (a
// first NaN, a resume, the last progress line before a hang), and the counts of what
// was left out are close.
TEST(FastPath, ThinnedMiddleKeepsWhatMatters) {
  std::string log;
  std::uint64_t line = 0;
  auto add = [&](const std::string& s) {
    log += s;
    log += '\n';
    ++line;
  };
  std::uint64_t nan_line = 0, resume_line = 0, last_loss_line = 0;
  for (int i = 0; log.size() < (24u << 20); ++i) {
    add("{'loss': " + std::to_string(2.5 - i * 1e-6) + ", 'learning_rate': 1e-05, 'epoch': 0." + std::to_string(i % 100) + "}");
    add(" 45%|####      | " + std::to_string(i) + "/500000 [01:00<09:00,  3.01it/s]");
    add("gpu7:1234:1300 [" + std::to_string(i % 8) + "] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7");
    if (i == 150000) {
      add("{'loss': nan, 'learning_rate': 1e-05, 'epoch': 0.5}");
      nan_line = line;
    }
    if (i == 160000) {
      add("Resuming training from checkpoint /ckpt/step-1000");
      resume_line = line;
    }
  }
  last_loss_line = line - 2;
  // The job then hangs: a watchdog repeats itself for more than the hold-back window.
  for (int i = 0; i < 30000; ++i)
    add("[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
        "OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.");
  const auto fast = builtin().classify_text(log, exit_status(std::nullopt, std::string("TIMEOUT")));
  const auto ref = reference().classify_text(log, exit_status(std::nullopt, std::string("TIMEOUT")));
  EXPECT_EQ(fast.cls, ref.cls);
  const std::string ft = to_text(fast), rt = to_text(ref);
  for (const auto& l : {nan_line, last_loss_line}) {
    const std::string at = "line " + std::to_string(l);
    EXPECT_EQ(rt.find(at) != std::string::npos, ft.find(at) != std::string::npos) << at << "\n" << ft << "\n" << rt;
  }
  EXPECT_NE(ft.find(std::to_string(last_loss_line)), std::string::npos) << ft;
  (void)resume_line;
  EXPECT_EQ(fast.lines_read, ref.lines_read);
}

}  // namespace
}  // namespace gpualert::classify::test
