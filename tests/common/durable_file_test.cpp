#include "gpualert/common/durable_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

namespace fs = std::filesystem;
using namespace gpualert;

namespace {
fs::path scratch() {
  auto p = fs::temp_directory_path() / ("gpualert-common-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}
}  // namespace

TEST(DurableFile, MakeDirsCreatesNestedWithMode) {
  const auto root = scratch();
  make_dirs(root / "a" / "b", 0700);
  struct stat st {};
  ASSERT_EQ(::stat((root / "a" / "b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  make_dirs(root / "a" / "b");  // idempotent
  fs::remove_all(root);
}

TEST(DurableFile, MakeDirsRejectsAFileInTheWay) {
  const auto root = scratch();
  make_dirs(root);
  write_file_atomic(root / "f", "x");
  EXPECT_THROW(make_dirs(root / "f"), std::system_error);
  fs::remove_all(root);
}

TEST(DurableFile, AtomicWriteReplacesAndLeavesNoTemp) {
  const auto root = scratch();
  make_dirs(root);
  write_file_atomic(root / "f.json", "one");
  write_file_atomic(root / "f.json", "two");
  EXPECT_EQ(read_file(root / "f.json"), "two");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root)) ++files;
  EXPECT_EQ(files, 1);
  fs::remove_all(root);
}

TEST(DurableFile, AtomicWriteIntoMissingDirThrows) {
  EXPECT_THROW(write_file_atomic("/nonexistent-gpualert-dir/x", "y"), std::system_error);
}
