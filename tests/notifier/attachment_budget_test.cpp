// The budget never drops a file silently: every candidate is attached xor omitted.
#include "gpualert/notifier/attachment_budget.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <sys/stat.h>
#include <zlib.h>

#include <map>
#include <memory>
#include <random>

#include "test_support.hpp"

namespace gpualert::notify {
namespace {

using testing::TempDir;
using testing::write_bytes;

// Checks the invariant and returns path -> "attached"/"gz"/reason.
std::map<std::string, std::string> check_invariant(const std::vector<FileCandidate>& in, const AttachmentPlan& plan) {
  std::map<std::string, std::string> seen;
  std::uint64_t used = 0;
  for (const PlannedFile& f : plan.attached) {
    EXPECT_TRUE(seen.emplace(f.file.path.string(), f.compressed ? "gz" : "attached").second) << f.file.path;
    EXPECT_EQ(f.encoded_size, base64_encoded_size(f.raw_size));
    used += f.encoded_size;
  }
  for (const OmittedFile& f : plan.omitted) {
    EXPECT_FALSE(f.reason.empty());
    EXPECT_TRUE(seen.emplace(f.path.string(), f.reason).second) << f.path;
  }
  EXPECT_EQ(seen.size(), in.size());
  for (const FileCandidate& c : in) EXPECT_EQ(seen.count(c.path.string()), 1u) << c.path;
  EXPECT_EQ(plan.used, used);
  EXPECT_LE(plan.used, plan.budget);
  return seen;
}

std::string gunzip(const std::filesystem::path& p) {
  gzFile g = gzopen(p.c_str(), "rb");
  EXPECT_NE(g, nullptr);
  std::string out;
  char buf[65536];
  int n;
  while ((n = gzread(g, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  EXPECT_EQ(n, 0);
  gzclose(g);
  return out;
}

class BudgetTest : public ::testing::Test {
 protected:
  TempDir dir;
  TempDir staging;
  FileCandidate cand(const std::string& name) { return {dir / name, name, "text/plain; charset=utf-8"}; }
};

TEST_F(BudgetTest, EveryKindOfCandidateEndsInExactlyOneList) {
  const std::uint64_t budget = 100 * 1024;
  write_bytes(dir / "output.log", testing::log_text(300 * 1024));       // too big raw, fits gzipped
  write_bytes(dir / "small.txt", "hello\n");
  write_bytes(dir / "empty.txt", "");
  write_bytes(dir / "noise.bin", testing::random_bytes(200 * 1024));   // never fits
  write_bytes(dir / "after.txt", std::string(10 * 1024, 'a'));         // still fits after noise
  write_bytes(dir / "medium.bin", testing::random_bytes(70 * 1024, 2)); // fits the budget, not what is left
  std::filesystem::create_directory(dir / "subdir");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  std::filesystem::create_symlink(dir / "small.txt", dir / "link.txt");
  std::filesystem::create_symlink(dir / "nowhere", dir / "dangling");
  const std::vector<FileCandidate> in = {cand("output.log"), cand("small.txt"), cand("empty.txt"), cand("noise.bin"),
                                         cand("after.txt"),  cand("medium.bin"), cand("subdir"),    cand("fifo"),      cand("link.txt"),
                                         cand("dangling"),   cand("missing.log")};
  const AttachmentPlan plan = plan_attachments(in, budget, staging.path());
  auto seen = check_invariant(in, plan);
  EXPECT_EQ(seen[(dir / "output.log").string()], "gz");
  EXPECT_EQ(seen[(dir / "small.txt").string()], "attached");
  EXPECT_EQ(seen[(dir / "empty.txt").string()], "attached");
  EXPECT_EQ(seen[(dir / "after.txt").string()], "attached");
  EXPECT_EQ(seen[(dir / "subdir").string()], "not a regular file (directory)");
  EXPECT_EQ(seen[(dir / "fifo").string()], "not a regular file (FIFO)");
  EXPECT_EQ(seen[(dir / "link.txt").string()], "not a regular file (symbolic link)");
  EXPECT_EQ(seen[(dir / "dangling").string()], "not a regular file (symbolic link)");
  EXPECT_EQ(seen[(dir / "missing.log").string()], "missing: No such file or directory");
  EXPECT_EQ(seen[(dir / "noise.bin").string()], "over the 100.0 KiB attachment budget (200.0 KiB, also when gzipped)");
  const std::string medium = seen[(dir / "medium.bin").string()];
  EXPECT_TRUE(medium.starts_with("does not fit in the ") && medium.ends_with(" left of the 100.0 KiB attachment budget (70.0 KiB, also when gzipped)")) << medium;
}

TEST_F(BudgetTest, CompressedAttachmentIsValidGzipOfTheSnapshot) {
  const std::string text = testing::log_text(2 * 1024 * 1024);
  write_bytes(dir / "output.log", text);
  auto plan = std::make_unique<AttachmentPlan>(plan_attachments({cand("output.log")}, 1024 * 1024, staging.path()));
  ASSERT_EQ(plan->attached.size(), 1u);
  const PlannedFile f = plan->attached[0];  // a copy shares the staged file
  EXPECT_TRUE(f.compressed);
  EXPECT_EQ(f.file.attach_name, "output.log");
  EXPECT_EQ(f.shown_name(), "output.log.gz");
  EXPECT_EQ(f.file.path, dir / "output.log");
  EXPECT_EQ(f.original_size, text.size());
  // An unnamed file: nothing of it is visible in the staging directory.
  EXPECT_EQ(f.source.parent_path(), "/proc/self/fd");
  EXPECT_TRUE(std::filesystem::is_empty(staging.path()));
  EXPECT_EQ(f.raw_size, std::filesystem::file_size(f.source));
  EXPECT_LT(f.raw_size * 5, text.size());  // logs compress well
  struct stat st {};
  ASSERT_EQ(::stat(f.source.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(gunzip(f.source), text);
  const std::filesystem::path staged = f.source;
  plan.reset();
  EXPECT_TRUE(std::filesystem::exists(staged));  // the copy F still holds it
}

TEST_F(BudgetTest, StagedFileIsDeletedWithTheLastCopyOfThePlan) {
  write_bytes(dir / "output.log", testing::log_text(2 * 1024 * 1024));
  std::filesystem::path staged;
  struct stat before {};
  {
    AttachmentPlan plan = plan_attachments({cand("output.log")}, 1024 * 1024, staging.path());
    ASSERT_EQ(plan.attached.size(), 1u);
    ASSERT_TRUE(plan.attached[0].compressed);
    staged = plan.attached[0].source;
    Message m;
    m.attachments = plan;
    ASSERT_EQ(::stat(staged.c_str(), &before), 0);
    EXPECT_EQ(before.st_nlink, 0u);  // unnamed: it lives only as long as its descriptor
  }
  // Gone: the descriptor is closed (its number may since name something else).
  struct stat after {};
  EXPECT_TRUE(::stat(staged.c_str(), &after) != 0 || after.st_ino != before.st_ino || after.st_dev != before.st_dev);
  EXPECT_TRUE(std::filesystem::is_empty(staging.path()));
}

// A process killed while it holds a compressed copy (a post-run stopped at its
// deadline) leaves nothing behind.
TEST_F(BudgetTest, AKilledProcessLeavesNoStagedFile) {
  write_bytes(dir / "output.log", testing::log_text(2 * 1024 * 1024));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    AttachmentPlan plan = plan_attachments({cand("output.log")}, 1024 * 1024, staging.path());
    if (plan.attached.empty() || !plan.attached[0].compressed) ::_exit(3);
    ::raise(SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child did not get as far as compressing: " << status;
  EXPECT_TRUE(std::filesystem::is_empty(staging.path()));
}

TEST_F(BudgetTest, FileThatFitsNeitherWayIsOmittedWithSizes) {
  write_bytes(dir / "noise.bin", testing::random_bytes(300 * 1024));
  const AttachmentPlan plan = plan_attachments({cand("noise.bin")}, 100 * 1024, staging.path());
  ASSERT_EQ(plan.omitted.size(), 1u);
  EXPECT_EQ(plan.omitted[0].size, 300u * 1024);
  EXPECT_EQ(plan.omitted[0].reason, "over the 100.0 KiB attachment budget (300.0 KiB, also when gzipped)");
  EXPECT_TRUE(std::filesystem::is_empty(staging.path()));  // the abandoned .gz is gone
}

TEST_F(BudgetTest, SnapshotSizeIsTakenAtPlanTime) {
  write_bytes(dir / "output.log", "first\n");
  const AttachmentPlan plan = plan_attachments({cand("output.log")}, 1024, staging.path());
  write_bytes(dir / "output.log", "first\nsecond line written later\n");
  ASSERT_EQ(plan.attached.size(), 1u);
  EXPECT_EQ(plan.attached[0].raw_size, 6u);
}

TEST_F(BudgetTest, ZeroBudgetAttachesOnlyEmptyFiles) {
  write_bytes(dir / "a", "x");
  write_bytes(dir / "b", "");
  const AttachmentPlan plan = plan_attachments({cand("a"), cand("b")}, 0, staging.path());
  check_invariant({cand("a"), cand("b")}, plan);
  ASSERT_EQ(plan.attached.size(), 1u);
  EXPECT_EQ(plan.attached[0].file.attach_name, "b");
  EXPECT_EQ(plan.omitted[0].reason, "over the 0 B attachment budget (1 B, also when gzipped)");
}

TEST_F(BudgetTest, ExactFitIsAttached) {
  write_bytes(dir / "a", std::string(570, 'q'));
  const AttachmentPlan plan = plan_attachments({cand("a")}, base64_encoded_size(570), staging.path());
  ASSERT_EQ(plan.attached.size(), 1u);
  EXPECT_FALSE(plan.attached[0].compressed);
  EXPECT_EQ(plan.used, plan.budget);
}

TEST_F(BudgetTest, UnusableStagingDirIsAReasonNotACrash) {
  write_bytes(dir / "output.log", testing::log_text(300 * 1024));
  write_bytes(dir / "plainfile", "x");
  const AttachmentPlan plan = plan_attachments({cand("output.log")}, 100 * 1024, dir / "plainfile" / "staging");
  ASSERT_EQ(plan.omitted.size(), 1u);
  EXPECT_NE(plan.omitted[0].reason.find("gzip failed"), std::string::npos) << plan.omitted[0].reason;
}

TEST_F(BudgetTest, RandomMixesKeepTheInvariant) {
  std::mt19937 gen(42);
  for (int round = 0; round < 20; ++round) {
    TempDir d;
    std::vector<FileCandidate> in;
    const int n = 1 + static_cast<int>(gen() % 8);
    for (int i = 0; i < n; ++i) {
      const auto p = d / ("f" + std::to_string(i));
      switch (gen() % 4) {
        case 0: write_bytes(p, testing::random_bytes(gen() % 40000, static_cast<unsigned>(i))); break;
        case 1: write_bytes(p, testing::log_text(gen() % 200000)); break;
        case 2: std::filesystem::create_directory(p); break;
        default: break;  // missing
      }
      in.push_back({p, p.filename().string(), "application/octet-stream"});
    }
    const AttachmentPlan plan = plan_attachments(in, gen() % 60000, staging.path());
    check_invariant(in, plan);
  }
  EXPECT_TRUE(std::filesystem::is_empty(staging.path()));
}

}  // namespace
}  // namespace gpualert::notify
