#include "capped_copy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

using gpualert::epilog::copy_capped;

namespace {

struct Tmp {
  std::string path;
  int fd = -1;
  Tmp() {
    char name[] = "/tmp/gpualert-capped-XXXXXX";
    fd = ::mkstemp(name);
    path = name;
  }
  ~Tmp() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string read_all() const {
    std::string out(static_cast<std::size_t>(::lseek(fd, 0, SEEK_END)), '\0');
    EXPECT_EQ(::pread(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    return out;
  }
};

void put(int fd, const std::string& s) { ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size())); }

}  // namespace

TEST(CappedCopy, ASmallLogIsCopiedWhole) {
  Tmp in, out;
  put(in.fd, "step 1 loss 2.0\nstep 2 loss 1.0\n");
  const auto r = copy_capped(in.fd, out.fd, 1024, 1024);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(out.read_all(), "step 1 loss 2.0\nstep 2 loss 1.0\n");
  EXPECT_EQ(r.skipped, 0u);
}

TEST(CappedCopy, KeepsHeadAndTailAndSaysWhatWasLeftOut) {
  Tmp in, out;
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "line " + std::to_string(i) + "\n";
  put(in.fd, text);
  const auto r = copy_capped(in.fd, out.fd, 100, 200);
  const std::string got = out.read_all();
  EXPECT_EQ(got.substr(0, 100), text.substr(0, 100));
  EXPECT_EQ(got.substr(got.size() - 200), text.substr(text.size() - 200));
  EXPECT_EQ(r.skipped, text.size() - 300);
  EXPECT_NE(got.find("[gpualert] " + std::to_string(r.skipped) + " bytes of this task's output are not shown"),
            std::string::npos);
  EXPECT_LT(got.size(), 500u);
}

TEST(CappedCopy, AHugeSparseFileCostsNothing) {
  // What `truncate -s 3G log` leaves: 74 real bytes and a 3 GiB hole.
  Tmp in, out;
  put(in.fd, "the real output of the task, seventy-odd bytes long, ending in an error\n");
  ASSERT_EQ(::ftruncate(in.fd, 3LL << 30), 0);
  const auto r = copy_capped(in.fd, out.fd, 8 << 20, 8 << 20);
  EXPECT_TRUE(r.ok);
  const std::string got = out.read_all();
  EXPECT_EQ(got.rfind("the real output", 0), 0u);
  EXPECT_GT(r.holes, 3ULL << 29);
  EXPECT_LT(got.size(), 16384u) << "holes were copied as zeros";  // data ranges are whole file-system blocks
  EXPECT_NE(got.find("bytes of holes"), std::string::npos);
}

TEST(CappedCopy, RefusesWhatIsNotARegularFile) {
  Tmp out;
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  EXPECT_FALSE(copy_capped(p[0], out.fd, 10, 10).ok);
  ::close(p[0]);
  ::close(p[1]);
}
