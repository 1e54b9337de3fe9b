#include "gpualert/runner/wrapped_run.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "gpualert/common/durable_file.hpp"

namespace fs = std::filesystem;
using namespace gpualert::runner;

namespace {
// Runs ARGV under run_wrapped with our stdout/stderr pointed at files, so the
// test can compare what "the terminal" got with what the log got.
struct Captured {
  WrapResult result;
  std::string out, err, log;
};

Captured wrap(const std::vector<std::string>& argv) {
  const fs::path dir = fs::temp_directory_path() / ("gpualert-wr-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int saved_out = ::fcntl(1, F_DUPFD_CLOEXEC, 3), saved_err = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  const int o = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  const int e = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ::dup2(o, 1);
  ::dup2(e, 2);
  Captured c;
  {
    LogWriter log(::open((dir / "log").c_str(), O_WRONLY | O_CREAT, 0600), -1);
    SignalRelay relay;
    relay.install();
    c.result = run_wrapped(argv, &log, relay);
    relay.restore();
  }
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  for (int fd : {o, e, saved_out, saved_err}) ::close(fd);
  c.out = gpualert::read_file(dir / "out");
  c.err = gpualert::read_file(dir / "err");
  c.log = gpualert::read_file(dir / "log");
  fs::remove_all(dir);
  return c;
}
}  // namespace

TEST(WrappedRun, TeesBothStreamsAndReportsTheStatus) {
  const auto c = wrap({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_FALSE(c.result.exec_failed);
  ASSERT_TRUE(WIFEXITED(c.result.wait_status));
  EXPECT_EQ(WEXITSTATUS(c.result.wait_status), 3);
  EXPECT_EQ(c.out, "out\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(c.log.size(), 8u);
}

TEST(WrappedRun, ExecFailureIsReportedAndLogged) {
  const auto c = wrap({"/nonexistent/gpualert-test-binary"});
  EXPECT_TRUE(c.result.exec_failed);
  ASSERT_TRUE(WIFEXITED(c.result.wait_status));
  EXPECT_EQ(WEXITSTATUS(c.result.wait_status), 127);
  EXPECT_NE(c.log.find("cannot execute '/nonexistent/gpualert-test-binary'"), std::string::npos);
  EXPECT_NE(c.err.find("command not found"), std::string::npos);
}

TEST(WrappedRun, BackgroundGrandchildDoesNotHoldTheWrapper) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto c = wrap({"/bin/sh", "-c", "sleep 5 & echo started"});
  const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 10.0);
  EXPECT_EQ(c.out, "started\n");
  EXPECT_FALSE(c.result.notes.empty());
}
