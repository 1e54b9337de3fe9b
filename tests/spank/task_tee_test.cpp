// Runs start_task_tee in real forked "task" processes, the way slurmstepd's
// task calls it before exec, and checks the user's files and the log.
#include "task_tee.hpp"
#include "gpualert/runner/destination.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "log_index.hpp"

namespace fs = std::filesystem;
using gpualert::runner::same_open_file;
using gpualert::runner::one_destination;
using gpualert::spank::start_task_tee;
using gpualert::spank::test::split_by_index;

namespace {

const std::string kShared = "[gpualert] stdout and stderr share one file: captured as one stream\n";

class TaskTee : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gpualert-tee-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = fs::canonical(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::string log() const { return slurp(path("task.log")); }
  std::string index() const { return slurp(path("task.streams")); }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // In the calling (task) process: what the plugin does in task_init.
  bool start(std::uint64_t head = gpualert::spank::kDefaultLogHeadBytes,
             std::uint64_t tail = gpualert::spank::kDefaultLogTailBytes) const {
    const int log = ::open(path("task.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int idx = ::open(path("task.streams").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    return log >= 0 && idx >= 0 && start_task_tee(log, idx, -1, head, tail);
  }

  // Pids of processes that hold the task log open: the tee, while it runs.
  std::vector<pid_t> log_holders() const {
    std::vector<pid_t> pids;
    const std::string want = path("task.log");
    DIR* proc = ::opendir("/proc");
    while (dirent* e = proc ? ::readdir(proc) : nullptr) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      std::error_code ec;
      if (pid <= 0) continue;
      for (const auto& fd : fs::directory_iterator("/proc/" + std::string(e->d_name) + "/fd", ec))
        if (fs::read_symlink(fd.path(), ec) == want) pids.push_back(pid);
    }
    if (proc) ::closedir(proc);
    return pids;
  }

  // True once no process holds the log (the tee has finished writing it).
  bool tee_gone_within(std::chrono::milliseconds limit) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!log_holders().empty()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  // Forks a task: SETUP arranges fds 1 and 2, then the tee starts and BODY
  // runs; returns BODY's exit code (90 when the tee did not start).
  int run_task(const std::function<void()>& setup, const std::function<int()>& body, std::uint64_t head = 8u << 20,
               std::uint64_t tail = 8u << 20) const {
    const pid_t pid = ::fork();
    if (pid == 0) {
      setup();
      ::_exit(start(head, tail) ? body() : 90);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(tee_gone_within(std::chrono::seconds(10)));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  void redirect(const char* name, int fd) const {
    const int f = ::open(path(name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(f, fd);
    ::close(f);
  }

  fs::path dir_;
};

void put(int fd, const std::string& s) {
  for (std::size_t at = 0; at < s.size();) {
    const ssize_t n = ::write(fd, s.data() + at, s.size() - at);
    if (n <= 0) ::_exit(91);
    at += static_cast<std::size_t>(n);
  }
}

// Short failure text for long outputs: where they first differ.
std::string diff(const std::string& got, const std::string& want) {
  if (got == want) return "";
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  return "differ at byte " + std::to_string(i) + " of " + std::to_string(want.size()) + " (got " +
         std::to_string(got.size()) + "): got \"" + got.substr(i, 40) + "\" want \"" + want.substr(i, 40) + "\"";
}

// 600 lines alternating between stdout and stderr.
std::string line(int i) { return std::to_string(i) + (i % 2 ? " err\n" : " out\n"); }

}  // namespace

TEST_F(TaskTee, SharedFileKeepsExactOrderThroughOnePipe) {
  std::string all;
  for (int i = 0; i < 600; ++i) all += line(i);
  const int rc = run_task(
      [&] {
        redirect("out.txt", 1);
        ::dup2(1, 2);  // 2>&1
      },
      [] {
        for (int i = 0; i < 600; ++i) put(i % 2 ? 2 : 1, line(i));
        return 0;
      });
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(diff(slurp(path("out.txt")), all), "");
  EXPECT_EQ(diff(log(), kShared + all), "");
  auto s = split_by_index(log(), index());
  EXPECT_EQ(s['g'], kShared);
  EXPECT_EQ(diff(s['o'], all), "");
}

TEST_F(TaskTee, TerminalsStayTerminalsAndAreNotCaptured) {
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  const int rc = run_task(
      [&] {
        ::dup2(slave, 1);
        ::dup2(slave, 2);
        ::close(master);
        ::close(slave);
      },
      [] { return ::isatty(1) == 1 && ::isatty(2) == 1 ? 0 : 3; });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(log(),
            "[gpualert] stdout is a terminal: it was left as it is and not captured\n"
            "[gpualert] stderr is a terminal: it was left as it is and not captured\n");

  // Terminal on stdout only: stderr is still teed, stdout reaches the pty directly.
  const int rc2 = run_task(
      [&] {
        ::dup2(slave, 1);
        redirect("err.txt", 2);
        ::close(master);
        ::close(slave);
      },
      [] {
        put(1, "to tty\n");
        put(2, "to err\n");
        return ::isatty(1) == 1 && ::isatty(2) == 0 ? 0 : 3;
      });
  EXPECT_EQ(rc2, 0);
  EXPECT_EQ(log(), "[gpualert] stdout is a terminal: it was left as it is and not captured\nto err\n");
  EXPECT_EQ(slurp(path("err.txt")), "to err\n");
  pollfd p{master, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 2000), 1);
  char buf[64];
  const ssize_t n = ::read(master, buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "to tty\r\n");
  ::close(master);
  ::close(slave);
}

TEST_F(TaskTee, SeparateFilesGetTheirOwnStreamAndTheLogBoth) {
  std::string out, err;
  for (int i = 0; i < 600; ++i) (i % 2 ? err : out) += line(i);
  const int rc = run_task(
      [&] {
        redirect("out.txt", 1);
        redirect("err.txt", 2);
      },
      [] {
        for (int i = 0; i < 600; ++i) put(i % 2 ? 2 : 1, line(i));
        return 0;
      });
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(diff(slurp(path("out.txt")), out), "");
  EXPECT_EQ(diff(slurp(path("err.txt")), err), "");
  auto s = split_by_index(log(), index());
  EXPECT_EQ(diff(s['o'], out), "");
  EXPECT_EQ(diff(s['e'], err), "");
  EXPECT_EQ(s.count('g'), 0u);
}

TEST_F(TaskTee, LogKeepsHeadMarkerAndTailButTheFileGetsEverything) {
  std::string data;
  for (std::size_t i = 0; data.size() < (3u << 20); i += 16) {
    char l[17];
    std::snprintf(l, sizeof l, "%015zu\n", i);
    data += l;
  }
  data.resize(3u << 20);
  constexpr std::size_t kCap = 256 * 1024;
  const int rc = run_task(
      [&] {
        redirect("out.txt", 1);
        redirect("err.txt", 2);
      },
      [&] {
        for (std::size_t at = 0; at < data.size(); at += 4096) put(1, data.substr(at, 4096));
        return 0;
      },
      kCap, kCap);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(diff(slurp(path("out.txt")), data), "") << "the user's file must get all 3 MiB";
  const std::string marker = "[gpualert] " + std::to_string(data.size() - 2 * kCap) +
                             " bytes of output were not kept (the log keeps the first 262144 and the last 262144 bytes)\n";
  const std::string want = data.substr(0, kCap) + marker + data.substr(data.size() - kCap);
  const std::string got = log();
  EXPECT_EQ(diff(got, want), "") << "log is not head + marker + tail";
  auto s = split_by_index(got, index());
  EXPECT_EQ(s['g'], marker);
  EXPECT_EQ(diff(s['o'], data.substr(0, kCap) + data.substr(data.size() - kCap)), "");
}

// P stands in for slurmstepd; its task T leaves behind a daemon that keeps
// stdout open. Once P exits the tee must stop too, not live on with the daemon.
TEST_F(TaskTee, TeeEndsWithTheStepEvenIfADaemonHoldsStdout) {
  int pidpipe[2];
  ASSERT_EQ(::pipe(pidpipe), 0);
  const pid_t p = ::fork();
  if (p == 0) {
    const pid_t t = ::fork();
    if (t == 0) {
      redirect("out.txt", 1);
      redirect("err.txt", 2);
      if (!start()) ::_exit(90);
      put(1, "before\n");
      if (::fork() == 0) {
        ::setsid();
        const pid_t d = ::fork();
        if (d == 0) {
          ::close(pidpipe[1]);
          ::sleep(30);  // holds stdout's pipe all along
          ::_exit(0);
        }
        ::_exit(::write(pidpipe[1], &d, sizeof d) == static_cast<ssize_t>(sizeof d) ? 0 : 1);
      }
      ::_exit(0);
    }
    int st = 0;
    ::waitpid(t, &st, 0);
    ::usleep(100 * 1000);
    ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 99);
  }
  ::close(pidpipe[1]);
  pid_t daemon = 0;
  const bool got_daemon = ::read(pidpipe[0], &daemon, sizeof daemon) == static_cast<ssize_t>(sizeof daemon);
  ::close(pidpipe[0]);
  int st = 0;
  ::waitpid(p, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  const bool gone = tee_gone_within(std::chrono::seconds(4));
  if (got_daemon && daemon > 0) ::kill(daemon, SIGKILL);
  ASSERT_TRUE(got_daemon);
  EXPECT_TRUE(gone) << "the tee outlived the step";
  EXPECT_EQ(slurp(path("out.txt")), "before\n");
  const std::string l = log();
  EXPECT_EQ(l.rfind("before\n", 0), 0u) << l;
  EXPECT_NE(l.find("[gpualert] the step ended while a process still held stdout open"), std::string::npos) << l;
}

TEST(SameOpenFile, DupIsSameSeparateOpenIsNot) {
  char name[] = "/tmp/gpualert-same-XXXXXX";
  const int a = ::mkstemp(name);
  ASSERT_GE(a, 0);
  const int b = ::dup(a);
  const int c = ::open(name, O_WRONLY | O_APPEND);
  ::unlink(name);
  int pp[2];
  ASSERT_EQ(::pipe(pp), 0);
  for (bool kcmp : {true, false}) {
    EXPECT_TRUE(same_open_file(a, b, kcmp));
    EXPECT_FALSE(same_open_file(a, c, kcmp));  // same inode, other flags
    EXPECT_FALSE(same_open_file(pp[0], pp[1], kcmp));
    EXPECT_FALSE(same_open_file(a, -1, kcmp));
  }
  for (int fd : {a, b, c, pp[0], pp[1]}) ::close(fd);
}

// slurmstepd opens `-o F` twice, each time for appending, when no -e is given:
// two open files, one ordered destination.
TEST(OutputDestination, OneFileOpenedTwiceForAppendingIsOne) {
  char name[] = "/tmp/gpualert-dest-XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  const int a1 = ::open(name, O_WRONLY | O_APPEND), a2 = ::open(name, O_WRONLY | O_APPEND);
  const int w1 = ::open(name, O_WRONLY), w2 = ::open(name, O_WRONLY);
  EXPECT_FALSE(same_open_file(a1, a2));
  EXPECT_TRUE(one_destination(a1, a2));
  EXPECT_FALSE(one_destination(w1, w2));  // separate offsets: not one sequence
  EXPECT_FALSE(one_destination(a1, w1));
  for (int f : {fd, a1, a2, w1, w2}) ::close(f);
  ::unlink(name);
}
