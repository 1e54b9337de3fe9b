// The password file is refused unless only its owner can use it.
#include "gpualert/notifier/password_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "test_support.hpp"

namespace gpualert::notify {
namespace {

using testing::TempDir;
using testing::write_bytes;

TEST(PasswordFile, ReadsAndStripsOneNewline) {
  TempDir t;
  write_bytes(t / "pw", "s3cret\n");
  ::chmod((t / "pw").c_str(), 0600);
  auto r = read_password_file(t / "pw");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.password, "s3cret");
  write_bytes(t / "pw", "two\n\n");
  EXPECT_EQ(read_password_file(t / "pw").password, "two\n");
  write_bytes(t / "pw", "dos\r\n");
  EXPECT_EQ(read_password_file(t / "pw").password, "dos");
  write_bytes(t / "pw", " spaces kept ");
  EXPECT_EQ(read_password_file(t / "pw").password, " spaces kept ");
}

TEST(PasswordFile, RefusesGroupOrOtherAccess) {
  TempDir t;
  write_bytes(t / "pw", "s3cret\n");
  for (unsigned mode : {0644u, 0640u, 0604u, 0620u, 0660u}) {
    ::chmod((t / "pw").c_str(), mode);
    auto r = read_password_file(t / "pw");
    EXPECT_FALSE(r.ok) << std::oct << mode;
    EXPECT_NE(r.error.find("chmod 600"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find("s3cret"), std::string::npos);
    EXPECT_TRUE(r.password.empty());
  }
  ::chmod((t / "pw").c_str(), 0400);
  EXPECT_TRUE(read_password_file(t / "pw").ok);
}

TEST(PasswordFile, RefusesSymlinksDirectoriesOtherOwnersAndEmpty) {
  TempDir t;
  write_bytes(t / "pw", "s3cret\n");
  ::chmod((t / "pw").c_str(), 0600);
  std::filesystem::create_symlink(t / "pw", t / "link");
  EXPECT_FALSE(read_password_file(t / "link").ok);
  EXPECT_FALSE(read_password_file(t.path()).ok);
  EXPECT_FALSE(read_password_file(t / "missing").ok);
  EXPECT_FALSE(read_password_file("").ok);
  write_bytes(t / "empty", "\n");
  ::chmod((t / "empty").c_str(), 0600);
  EXPECT_FALSE(read_password_file(t / "empty").ok);
}

TEST(PasswordFile, RefusesAFileOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a file to another user";
  TempDir t;
  write_bytes(t / "pw", "s3cret\n");
  ::chmod((t / "pw").c_str(), 0600);
  ASSERT_EQ(::chown((t / "pw").c_str(), ::geteuid() + 1, static_cast<gid_t>(-1)), 0);
  auto r = read_password_file(t / "pw");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not owned by the current user"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace gpualert::notify
