// The fast matcher's database cache: written private, reused, and never trusted when
// someone else could have written it (a database is code for Hyperscan's engine).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpualert/classifier/classifier.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

class MatcherCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpualert-hscache-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const char* old = std::getenv("GPUALERT_CACHE_DIR");
    if (old) old_ = old;
    ::setenv("GPUALERT_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_.empty()) ::unsetenv("GPUALERT_CACHE_DIR");
    else ::setenv("GPUALERT_CACHE_DIR", old_.c_str(), 1);
    fs::remove_all(dir_);
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(dir_))
      for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path());
    return out;
  }
  // A classifier that needs the database, and a verdict that proves it works.
  static void build_and_use() {
    const auto c = Classifier::with_builtin_rules();
    ASSERT_TRUE(c.build_fast_matcher());
    const auto v = c.classify_text("step 3 loss 2.1\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
                                   exit_status(1));
    EXPECT_EQ(v.cls, "cuda_oom");
  }
  fs::path dir_;
  std::string old_;
};

TEST_F(MatcherCache, WrittenPrivateAndReused) {
  build_and_use();
  auto f = files();
  ASSERT_EQ(f.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(f[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const auto written = fs::last_write_time(f[0]);
  build_and_use();  // loaded, not compiled and written again
  EXPECT_EQ(fs::last_write_time(f[0]), written);
  EXPECT_EQ(files().size(), 1u);
}

// Databases of rule sets no longer in use do not pile up: the newest few stay.
TEST_F(MatcherCache, OldDatabasesAreRemovedWhenANewOneIsWritten) {
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace);
  for (int i = 0; i < 12; ++i) {
    const fs::path old = dir_ / ("rules-old" + std::to_string(i) + ".hsdb");
    std::ofstream(old) << "stale";
    fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(24 + i));
  }
  std::ofstream(dir_ / "unrelated.txt") << "kept";
  build_and_use();
  std::size_t dbs = 0;
  for (const auto& f : files()) dbs += f.extension() == ".hsdb";
  EXPECT_EQ(dbs, 8u);  // the new one and the seven newest old ones
  EXPECT_TRUE(fs::exists(dir_ / "rules-old0.hsdb"));
  EXPECT_FALSE(fs::exists(dir_ / "rules-old11.hsdb"));
  EXPECT_TRUE(fs::exists(dir_ / "unrelated.txt"));
}

TEST_F(MatcherCache, ACorruptFileIsCompiledAgain) {
  build_and_use();
  const auto f = files().at(0);
  const auto size = fs::file_size(f);
  fs::resize_file(f, size / 2);
  build_and_use();
  EXPECT_EQ(fs::file_size(f), size);  // rewritten whole
  {
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(size - 100));
    io.write("garbage garbage garbage garbage", 31);
  }
  build_and_use();  // a flipped database is refused by Hyperscan's own check, or rewritten
}

TEST_F(MatcherCache, ADirectoryOthersCanWriteIsNotUsed) {
  fs::create_directories(dir_);
  ::chmod(dir_.c_str(), 0777);
  build_and_use();
  EXPECT_TRUE(files().empty()) << "wrote a database into a world-writable directory";
}

TEST_F(MatcherCache, AFileOfAnotherUserIsNotLoaded) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file away";
  build_and_use();
  const auto f = files().at(0);
  ASSERT_EQ(::chown(f.c_str(), 65534, 65534), 0);
  build_and_use();  // compiled again and replaced with our own
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

}  // namespace
}  // namespace gpualert::classify::test
