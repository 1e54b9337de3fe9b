// A batch script Slurm never started: told from a real signal, and explained by
// checking the paths with the user's rights.
#include "launch_failure.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

using namespace gpualert::epilog;

namespace {
constexpr uid_t kNobody = 65534;

JobAccounting batch_ended(const std::string& exit_code) {
  JobAccounting a;
  a.exit_code = exit_code;
  a.workdir = "/tmp";
  a.steps.push_back({"7.batch", "batch", "CANCELLED", exit_code});
  return a;
}
}  // namespace

TEST(LaunchFailure, OnlyAHighSignalWithoutAStartedScriptCounts) {
  JobLogs none;
  EXPECT_EQ(launch_error_signal(batch_ended("0:53"), none), 53);
  EXPECT_EQ(launch_error_signal(batch_ended("0:9"), none), std::nullopt);   // a real SIGKILL
  EXPECT_EQ(launch_error_signal(batch_ended("53:0"), none), std::nullopt);  // an exit status
  JobLogs started;
  started.steps.push_back({});
  started.steps.back().step = "batch";
  EXPECT_EQ(launch_error_signal(batch_ended("0:53"), started), std::nullopt);
}

TEST(LaunchFailure, AnUnwritableOutputFileIsNamedWithItsErrno) {
  if (::geteuid() != 0) GTEST_SKIP() << "checking as another user needs root";
  auto f = explain_launch_failure(53, "/tmp", {"/dev/null", "/etc/shadow"}, {kNobody, kNobody, {}}, "nobody");
  EXPECT_EQ(f.error, EACCES) << f.what;
  EXPECT_NE(f.what.find("/etc/shadow"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("4021"), std::string::npos) << f.what;
  f = explain_launch_failure(53, "/tmp", {"/nonexistent-gpualert/out/7.log"}, {kNobody, kNobody, {}}, "nobody");
  EXPECT_EQ(f.error, ENOENT) << f.what;
  EXPECT_NE(f.what.find("does not exist"), std::string::npos) << f.what;
  // Creatable by anyone (relative to the working directory): not the cause.
  f = explain_launch_failure(53, "/tmp", {"gpualert-launch-test.out"}, {kNobody, kNobody, {}}, "nobody");
  EXPECT_EQ(f.error, 0) << f.what;
  EXPECT_NE(f.what.find("slurmd log"), std::string::npos) << f.what;
}
