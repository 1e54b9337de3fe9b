// Hostile input: binary bytes, NULs, CRLF, giant lines, regex-killer lines, huge files.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gpualert/classifier/verdict_format.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

struct TempFile {
  fs::path path;
  TempFile() : path(fs::temp_directory_path() / ("gpualert-clf-" + std::to_string(::getpid()) + "-" + std::to_string(++n))) {}
  ~TempFile() { std::error_code ec; fs::remove(path, ec); }
  static inline int n = 0;
};

long max_rss_kib() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

TEST(Robustness, BinaryGarbageNulsAndAHugeLineAreBounded) {
  TempFile f;
  {
    std::ofstream out(f.path, std::ios::binary);
    out << "step 1 loss 2.0\n";
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage.push_back(i * 37 % 256 == '\n' ? 'x' : static_cast<char>(i * 37 % 256));
    out << garbage << "\n";
    // One 48 MiB line of NULs and bytes, written in small pieces.
    std::string chunk(64 * 1024, '\0');
    for (std::size_t i = 0; i < chunk.size(); i += 7) chunk[i] = 'x';
    for (int i = 0; i < 48 * 16; ++i) out << chunk;
    out << "\n";
    out << "ModuleNotFoundError: No module named 'apex'\r\n";
  }
  // The fast matcher's database is compiled once per rule set (then cached): not part
  // of what a log's size may cost.
  ASSERT_TRUE(builtin().build_fast_matcher());
  const long before = max_rss_kib();
  const Verdict v = builtin().classify_file(f.path, exit_status(1));
  const long grown = max_rss_kib() - before;
  EXPECT_EQ(v.cls, "missing_module");
  EXPECT_EQ(v.long_lines, 1u);
  EXPECT_EQ(v.lines_read, 4u);
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence.front().line, 4u);
  bool module_fact = false;
  for (const auto& [k, val] : v.facts) module_fact |= k == "module" && val == "apex";  // no trailing CR
  EXPECT_TRUE(module_fact);
  // AddressSanitizer's allocator keeps freed memory in quarantine; the bound
  // still proves the 48 MiB line was never held whole.
#if defined(__SANITIZE_ADDRESS__)
  const long limit_kib = 40 * 1024;
#else
  const long limit_kib = 16 * 1024;
#endif
  EXPECT_LT(grown, limit_kib) << "classifying a 48 MiB line grew RSS by " << grown << " KiB";
}

TEST(Robustness, TenMegabyteSingleLineViaText) {
  std::string log(10 * 1024 * 1024, 'a');
  log += " Segmentation fault\n";  // beyond the per-line cap: not read
  log += "Segmentation fault (core dumped)\n";
  const Verdict v = run(log, -11);
  EXPECT_EQ(v.cls, "segfault");
  EXPECT_EQ(v.long_lines, 1u);
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence.front().line, 2u);
  for (const auto& c : v.evidence) EXPECT_LT(c.text.size(), 1024u);
}

TEST(Robustness, RegexKillerLinesAreFast) {
  std::string log;
  log += std::string(100000, 'a') + "!\n";
  log += std::string(60000, '(') + std::string(60000, ')') + "\n";
  log += "loss " + std::string(60000, '9') + "x\n";
  log += "Traceback (most recent call last):\n" + std::string(60000, ' ') + "File\n";
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "CUDA error: ";
  log += many + "\n";
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) (void)run(log, 1);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0);
}

TEST(Robustness, CrlfLineNumbers) {
  const Verdict v = run("a\r\nb\r\nc\r\nZeroDivisionError: division by zero\r\n", 1);
  EXPECT_EQ(v.cls, "div_zero");
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence.front().line, 4u);
  EXPECT_EQ(v.evidence.front().text.find('\r'), std::string::npos);
}

TEST(Robustness, HugeFileIsReadHeadAndTail) {
  TempFile f;
  const int fd = ::open(f.path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  const std::string head = "step 1 loss 2.0\n";
  const std::string tail = "\nModuleNotFoundError: No module named 'foo'\n";
  const off_t size = (off_t{1} << 30) + (off_t{256} << 20);
  ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  ASSERT_EQ(::ftruncate(fd, size), 0);  // sparse: the middle is NUL bytes without newlines
  ASSERT_EQ(::pwrite(fd, tail.data(), tail.size(), size - static_cast<off_t>(tail.size())),
            static_cast<ssize_t>(tail.size()));
  ::close(fd);
  const Verdict v = builtin().classify_file(f.path, exit_status(1));
  EXPECT_TRUE(v.partial_scan);
  EXPECT_EQ(v.cls, "missing_module");
  ASSERT_FALSE(v.evidence.empty());
  // The sparse middle is a hole: skipped, not read as NULs, and its lines can only be
  // estimated (the message says so).
  bool says = false, hole = false, estimates = false;
  for (const auto& c : v.cannot_decide) {
    says |= c.find("were not read: the log is larger than 1024 MiB") != std::string::npos;
    hole |= c.find("are not in the log file") != std::string::npos;
    estimates |= c.find("line numbers after the gap are estimates") != std::string::npos;
  }
  EXPECT_TRUE(says);
  EXPECT_TRUE(hole);
  EXPECT_TRUE(estimates);
  EXPECT_LT(v.bytes_read, static_cast<std::uint64_t>(size));
}

// The middle `gpualert run` releases from a log over log_max (a punched hole): the head
// and the tail are read, the hole is named, and nothing in it is read as text.
TEST(Robustness, AReleasedMiddleIsSkippedAndNamed) {
  TempFile f;
  const int fd = ::open(f.path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  std::string lines;
  for (int i = 0; i < 4000; ++i) lines += "{'loss': 2.5, 'learning_rate': 1e-05, 'epoch': 0.5}\n";
  std::uint64_t off = 0;
  while (off < (48u << 20)) {
    ASSERT_EQ(::pwrite(fd, lines.data(), lines.size(), static_cast<off_t>(off)), static_cast<ssize_t>(lines.size()));
    off += lines.size();
  }
  const std::string tail = "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
                           "ModuleNotFoundError: No module named 'foo'\n";
  ASSERT_EQ(::pwrite(fd, tail.data(), tail.size(), static_cast<off_t>(off)), static_cast<ssize_t>(tail.size()));
  if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8 << 20, 32 << 20) != 0) {
    ::close(fd);
    GTEST_SKIP() << "this file system cannot punch holes";
  }
  ::close(fd);
  const Verdict v = builtin().classify_file(f.path, exit_status(1));
  EXPECT_EQ(v.cls, "missing_module");
  EXPECT_TRUE(v.partial_scan);
  EXPECT_LE(v.bytes_read, off + tail.size() - (32u << 20));
  bool hole = false;
  for (const auto& c : v.cannot_decide) hole |= c.find("32 MiB of it are not in the log file") != std::string::npos;
  EXPECT_TRUE(hole) << (v.cannot_decide.empty() ? "" : v.cannot_decide.back());
}

TEST(Robustness, ALogTooBigForTheTimeAllowedIsReadAtItsEndAndSaysSo) {
  // 64 MiB of training chatter, the error in the last line, and no time at all:
  // the reader still takes the first and the last MiB, keeps line numbers exact
  // or says they are estimates, and names the part it did not read.
  TempFile f;
  {
    std::ofstream out(f.path, std::ios::binary);
    const std::string line = "{'loss': 2.3456, 'learning_rate': 1e-05, 'epoch': 0.5}\n";
    for (std::size_t i = 0; i < (64u << 20) / line.size(); ++i) out << line;
    out << "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  }
  RunStatus st = exit_status(1);
  st.read_deadline = std::chrono::steady_clock::now();
  const Verdict v = builtin().classify_file(f.path, st);
  EXPECT_EQ(v.cls, "cuda_oom");
  EXPECT_TRUE(v.partial_scan);
  EXPECT_LT(v.bytes_read, 8u << 20);
  bool says = false;
  for (const auto& c : v.cannot_decide) says |= c.find("could not be read within the time allowed") != std::string::npos;
  EXPECT_TRUE(says);
}

TEST(Robustness, APipeIsReadUntilTheDeadline) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string log = "step 1\n";
  ASSERT_EQ(::write(p[1], log.data(), log.size()), static_cast<ssize_t>(log.size()));  // the writer never closes
  RunStatus st = exit_status(1);
  st.read_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  ::fcntl(p[0], F_SETFL, O_NONBLOCK);
  const Verdict v = builtin().classify_fd(p[0], st);
  ::close(p[0]);
  ::close(p[1]);
  EXPECT_TRUE(v.partial_scan);
}

TEST(Robustness, ClassifyFdReadsAPipe) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string log = "step 1\nPermissionError: [Errno 13] Permission denied: '/etc/x'\n";
  ASSERT_EQ(::write(p[1], log.data(), log.size()), static_cast<ssize_t>(log.size()));
  ::close(p[1]);
  const Verdict v = builtin().classify_fd(p[0], exit_status(1));
  ::close(p[0]);
  EXPECT_EQ(v.cls, "permission");
  EXPECT_EQ(v.bytes_read, log.size());
}

TEST(Robustness, MissingFileThrowsSystemError) {
  EXPECT_THROW(builtin().classify_file("/nonexistent/gpualert/log", exit_status(1)), std::system_error);
}

// A progress bar is mostly three-byte block characters: a cited line cut at a byte
// count must end on a whole character, or the verdict's JSON is invalid UTF-8.
TEST(Robustness, ACitedProgressBarIsCutOnAWholeCharacter) {
  std::string bar;
  for (int i = 0; i < 84; ++i) bar += "\xE2\x96\x88";  // U+2588, 252 bytes
  std::string log;
  for (int s = 1; s <= 411; s += 41) log += "{'loss': " + std::to_string(2.0 / s) + ", 'epoch': " + std::to_string(s / 137.0) + "}\n";
  log += "100%|" + bar + "| 411/411 [13:41<00:00,  1.58s/it]\n";
  const auto v = builtin().classify_text(log, exit_status(std::nullopt));  // no exit status: the bar is the witness
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_EQ(v.evidence[0].line, 12u);
  EXPECT_NO_THROW((void)to_json(v).dump()) << "strict UTF-8 check of every string in the verdict";
}

}  // namespace
}  // namespace gpualert::classify::test
