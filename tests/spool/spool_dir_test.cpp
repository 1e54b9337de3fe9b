#include "gpualert/spool/spool_dir.hpp"
#include "gpualert/spool/spool_expiry.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace gpualert::spool;

namespace {
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("gpualert-spool-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Scratch() { fs::remove_all(root); }
};
}  // namespace

TEST(SpoolDir, CreatesJobDirThatNoGroupCanList) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the plugin runs as root)";
  Scratch s;
  std::string why;
  auto spool = open_spool_root((s.root / "spool").string(), why);
  ASSERT_TRUE(spool) << why;
  auto job = open_job_dir(*spool, 42, 1234, true, why);
  ASSERT_TRUE(job) << why;
  struct stat st {};
  ASSERT_EQ(::stat((s.root / "spool" / "jobs" / "42").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_gid, 0u);
  EXPECT_EQ(st.st_mode & 0777, 0711u);
  ASSERT_TRUE(write_atomic_at(*job, "verdict.json", "{}", 1234, 1234, why)) << why;
  ASSERT_EQ(::stat((s.root / "spool" / "jobs" / "42" / "verdict.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1234u);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(SpoolDir, AReusedJobIdNeverMixesTwoUsers) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  Scratch s;
  std::string why, note, used;
  auto spool = open_spool_root((s.root / "spool").string(), why);
  ASSERT_TRUE(spool) << why;
  {
    auto bob = open_job_dir(*spool, 9, 2002, true, why);
    ASSERT_TRUE(bob) << why;
    ASSERT_TRUE(write_atomic_at(*bob, "step-0.vm.json", "{\"uid\":2002}", 0, 0, why));
  }
  // The helper of a job 9 that alice runs must not read bob's directory...
  EXPECT_FALSE(open_job_dir(*spool, 9, 1001, false, why));
  EXPECT_NE(why.find("uid 2002"), std::string::npos) << why;
  // ...and alice's first task gets a fresh one; bob's moves to stale/.
  auto alice = open_job_dir(*spool, 9, 1001, true, why, &note);
  ASSERT_TRUE(alice) << why;
  EXPECT_NE(note.find("stale/"), std::string::npos) << note;
  EXPECT_FALSE(fs::exists(s.root / "spool" / "jobs" / "9" / "step-0.vm.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(s.root / "spool" / "stale"), fs::directory_iterator()), 1);
  // The same user again (another task of the job) keeps the directory.
  note.clear();
  ASSERT_TRUE(open_job_dir(*spool, 9, 1001, true, why, &note));
  EXPECT_TRUE(note.empty()) << note;
  ASSERT_TRUE(open_job_dir(*spool, 9, 1001, false, why)) << why;
}

TEST(SpoolDir, RefusesASymlinkedOrForeignSpool) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  Scratch s;
  fs::create_directories(s.root / "real");
  fs::create_symlink(s.root / "real", s.root / "link");
  std::string why;
  EXPECT_FALSE(open_spool_root((s.root / "link").string(), why));
  fs::create_directories(s.root / "open");
  fs::permissions(s.root / "open", fs::perms::all);
  EXPECT_FALSE(open_spool_root((s.root / "open").string(), why));
  EXPECT_NE(why.find("writable by others"), std::string::npos);
  EXPECT_FALSE(open_spool_root("relative/path", why));
}

TEST(SpoolDir, NeverWritesThroughAPlantedLink) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  Scratch s;
  std::string why, used;
  auto spool = open_spool_root((s.root / "spool").string(), why);
  auto job = open_job_dir(*spool, 7, 0, true, why);
  ASSERT_TRUE(job);
  std::ofstream(s.root / "victim") << "intact";
  fs::create_symlink(s.root / "victim", s.root / "spool" / "jobs" / "7" / "0.node.0.log");
  const int fd = create_owned_file(*job, "0.node.0.log", 0, 0, used, why);
  ASSERT_GE(fd, 0) << why;
  EXPECT_EQ(used, "0.node.0.log.1");  // a fresh name, the link left alone
  EXPECT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);
  std::ifstream in(s.root / "victim");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "intact");
  // An atomic write replaces a planted link itself, never its target.
  fs::create_symlink(s.root / "victim", s.root / "spool" / "jobs" / "7" / "step-0.node.json");
  ASSERT_TRUE(write_atomic_at(*job, "step-0.node.json", "{}", 0, 0, why)) << why;
  EXPECT_FALSE(fs::is_symlink(s.root / "spool" / "jobs" / "7" / "step-0.node.json"));
  std::ifstream in2(s.root / "victim");
  in2 >> content;
  EXPECT_EQ(content, "intact");
  EXPECT_FALSE(read_at(*job, "missing.json", 100, why));
}

TEST(SpoolDir, SafeComponentNeutralisesPaths) {
  EXPECT_EQ(safe_component("../../etc"), ".._.._etc");
  EXPECT_EQ(safe_component(".."), "_");
  EXPECT_EQ(safe_component("node-01.cluster"), "node-01.cluster");
  EXPECT_EQ(safe_component("a/b\nc"), "a_b_c");
}

TEST(SpoolExpiry, OldJobDirectoriesGoAndLiveOnesStay) {
  Scratch s;
  std::string why;
  auto spool = open_spool_root((s.root / "spool").string(), why);
  if (!spool) GTEST_SKIP() << why;  // not root: the spool must be root's
  const auto jobs = s.root / "spool" / "jobs";
  for (const char* id : {"1", "2"}) {
    fs::create_directories(jobs / id);
    std::ofstream(jobs / id / "batch.0.log") << "output";
  }
  // Job 1 ended long ago; job 2's log was written a moment ago.
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24 * 30);
  fs::last_write_time(jobs / "1" / "batch.0.log", old);
  fs::last_write_time(jobs / "1", old);
  fs::last_write_time(jobs / "2", old);
  EXPECT_EQ(expire_job_dirs(*spool, std::chrono::hours(24 * 14)), 1u);
  EXPECT_FALSE(fs::exists(jobs / "1"));
  EXPECT_TRUE(fs::exists(jobs / "2" / "batch.0.log"));
}
