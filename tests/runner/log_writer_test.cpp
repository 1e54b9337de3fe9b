#include "gpualert/runner/log_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpualert/common/durable_file.hpp"

namespace fs = std::filesystem;
using namespace gpualert::runner;

namespace {
struct Files {
  fs::path dir = fs::temp_directory_path() / ("gpualert-lw-" + std::to_string(::getpid()));
  Files() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Files() { fs::remove_all(dir); }
  int open(const char* name) { return ::open((dir / name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600); }
};
}  // namespace

TEST(LogWriter, RecordsStreamSegmentsThatRebuildEachStream) {
  Files f;
  {
    LogWriter w(f.open("log"), f.open("idx"));
    w.append(StreamTag::Out, "a1\n");
    w.append(StreamTag::Out, "a2\n");
    w.append(StreamTag::Err, "E1\n");
    w.append(StreamTag::Out, "a3\n");
    w.finish();
    EXPECT_TRUE(w.ok());
    EXPECT_EQ(w.bytes(), 12u);
  }
  const std::string log = gpualert::read_file(f.dir / "log");
  EXPECT_EQ(log, "a1\na2\nE1\na3\n");
  std::istringstream idx(gpualert::read_file(f.dir / "idx"));
  std::string out, err;
  char tag;
  long long off, len, ms;
  int lines = 0;
  while (idx >> tag >> off >> len >> ms) {
    ++lines;
    (tag == 'o' ? out : err) += log.substr(static_cast<std::size_t>(off), static_cast<std::size_t>(len));
  }
  EXPECT_EQ(lines, 3);  // adjacent writes of one stream share a segment
  EXPECT_EQ(out, "a1\na2\na3\n");
  EXPECT_EQ(err, "E1\n");
}

// A log over its limit keeps its head and its tail on disk; the middle becomes a hole,
// so offsets (and the stream index) stay exact.
TEST(LogWriter, AGrowingLogKeepsItsHeadAndTailOnDisk) {
  Files f;
  const std::string chunk(1 << 20, 'x');
  {
    LogWriter w(f.open("log"), f.open("idx"));
    w.keep_head_and_tail(16 << 20, 16 << 20);
    w.append(StreamTag::Out, "HEAD\n");
    for (int i = 0; i < 300; ++i) w.append(StreamTag::Out, chunk);
    w.append(StreamTag::Err, "TAIL\n");
    w.finish();
    if (!w.note().empty()) GTEST_SKIP() << w.note();
    EXPECT_GT(w.released(), 200u << 20);
    EXPECT_EQ(w.bytes(), 5u + 300u * chunk.size() + 5u);
  }
  struct stat st {};
  ASSERT_EQ(::stat((f.dir / "log").c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 5u + 300u * chunk.size() + 5u);
  EXPECT_LE(static_cast<std::uint64_t>(st.st_blocks) * 512, (16u + 16u + 64u + 1u) << 20);
  const std::string text = gpualert::read_file(f.dir / "log");
  EXPECT_EQ(text.substr(0, 5), "HEAD\n");
  EXPECT_EQ(text.substr(text.size() - 5), "TAIL\n");
  EXPECT_EQ(text[(16u << 20) - 1], 'x');       // the head is whole
  EXPECT_EQ(text[(100u << 20)], '\0');          // the middle reads as a hole
  EXPECT_EQ(text[text.size() - (16u << 20)], 'x');  // the tail is whole
}

TEST(LogWriter, WriteFailureIsRememberedNotThrown) {
  Files f;
  LogWriter w(::open("/dev/full", O_WRONLY), -1);
  w.append(StreamTag::Out, "data");
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.error().find("log write failed"), std::string::npos);
  w.append(StreamTag::Out, "more");  // no crash, no throw
  w.finish();
}
