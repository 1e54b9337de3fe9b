#include "gpualert/runner/run_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace fs = std::filesystem;
using namespace gpualert::runner;

namespace {
fs::path scratch() {
  auto p = fs::temp_directory_path() / ("gpualert-rd-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
void close_all(RunDir& r) {
  ::close(r.log_fd);
  ::close(r.streams_fd);
}
}  // namespace

TEST(RunDir, FreshDirectoryIsPrivateAndHoldsAnEmptyLog) {
  const auto root = scratch();
  std::vector<std::string> errors;
  auto r = prepare_run_dir(std::nullopt, root / "state", errors);
  ASSERT_TRUE(r);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(r->dir.parent_path(), root / "state" / "runs");
  struct stat st {};
  ASSERT_EQ(::stat(r->dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(fs::exists(r->log));
  EXPECT_EQ(fs::file_size(r->log), 0u);
  close_all(*r);
  fs::remove_all(root);
}

TEST(RunDir, ExplicitDirKeepsAnEarlierRun) {
  const auto root = scratch();
  std::vector<std::string> errors;
  auto a = prepare_run_dir(root / "run", root / "state", errors);
  ASSERT_TRUE(a);
  ASSERT_EQ(::write(a->log_fd, "first\n", 6), 6);
  close_all(*a);
  auto b = prepare_run_dir(root / "run", root / "state", errors);
  ASSERT_TRUE(b);
  close_all(*b);
  int previous = 0;
  for (const auto& e : fs::directory_iterator(root / "run"))
    if (e.path().filename().string().rfind("previous-", 0) == 0) {
      ++previous;
      std::ifstream in(e.path() / "output.log");
      std::string line;
      std::getline(in, line);
      EXPECT_EQ(line, "first");
    }
  EXPECT_EQ(previous, 1);
  fs::remove_all(root);
}

TEST(RunDir, UnusableStateDirFallsBackToTmpdir) {
  const auto root = scratch();
  std::ofstream(root / "blocker") << "x";
  ::setenv("TMPDIR", (root / "tmp").c_str(), 1);
  fs::create_directories(root / "tmp");
  std::vector<std::string> errors;
  auto r = prepare_run_dir(std::nullopt, root / "blocker" / "state", errors);
  ::unsetenv("TMPDIR");
  ASSERT_TRUE(r);
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_EQ(r->dir.string().rfind((root / "tmp").string(), 0), 0u);
  ASSERT_EQ(r->warnings.size(), 1u);
  close_all(*r);
  fs::remove_all(root);
}

TEST(RunDir, SymlinkedLogIsNotFollowed) {
  const auto root = scratch();
  fs::create_directories(root / "run");
  std::ofstream(root / "victim") << "keep me";
  fs::create_symlink(root / "victim", root / "run" / "output.log");
  std::vector<std::string> errors;
  auto r = prepare_run_dir(root / "run", root / "state", errors);
  // The old entry is moved aside, never opened through; the victim is intact.
  ASSERT_TRUE(r);
  close_all(*r);
  std::ifstream in(root / "victim");
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "keep me");
  fs::remove_all(root);
}
