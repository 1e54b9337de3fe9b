// The exit-status analyzer on its own: Slurm's state words, signals from statuses, and
// whether a status supports a class.
#include "decision/exit_status.hpp"

#include <gtest/gtest.h>

namespace gpualert::classify::detail {
namespace {

TEST(ExitStatus, SlurmStatesBecomeOneWord) {
  EXPECT_EQ(state_word("CANCELLED by 1002"), "CANCELLED");
  EXPECT_EQ(state_word("cancelled"), "CANCELLED");
  EXPECT_EQ(state_word("CANCELLED DUE TO TIME LIMIT"), "TIMEOUT");
  EXPECT_EQ(state_word("CANCELLED DUE TO PREEMPTION"), "PREEMPTED");
  EXPECT_EQ(state_word("CANCELLED DUE TO NODE FAILURE"), "NODE_FAIL");
  EXPECT_EQ(state_word("REQUEUED+"), "REQUEUED");
  EXPECT_EQ(state_word("TIMEOUT"), "TIMEOUT");
  EXPECT_EQ(state_word(""), "");
}

TEST(ExitStatus, SignalsFromStatuses) {
  RunStatus st;
  st.exit_code = -9;
  Exit e = read_exit(st, "");
  EXPECT_EQ(e.signal, 9);
  EXPECT_FALSE(e.shell_style);
  st.exit_code = 139;
  e = read_exit(st, "");
  EXPECT_EQ(e.signal, 11);
  EXPECT_TRUE(e.shell_style);
  st.exit_code = 1;
  e = read_exit(st, "");
  EXPECT_EQ(e.signal, 0);
  EXPECT_FALSE(e.zero);
  st.exit_code.reset();
  EXPECT_TRUE(read_exit(st, "COMPLETED").zero);
  EXPECT_FALSE(read_exit(st, "FAILED").zero);
}

TEST(ExitStatus, AgreementWithAClass) {
  Exit killed;
  killed.code = -9;
  killed.signal = 9;
  Exit ok;
  ok.code = 0;
  ok.zero = true;
  Exit none;
  EXPECT_EQ(exit_agreement("oom_killer", killed), 1);
  EXPECT_EQ(exit_agreement("oom_killer", ok), -1);
  EXPECT_EQ(exit_agreement("cuda_oom", ok), -1);
  EXPECT_EQ(exit_agreement("healthy", ok), 1);
  EXPECT_EQ(exit_agreement("timeout", killed), 0);
  EXPECT_EQ(exit_agreement("cuda_oom", none), 0);
}

TEST(ExitStatus, ClaimsSayWhatTheStatusShows) {
  RunStatus st;
  st.exit_code = 137;
  const Exit e = read_exit(st, "");
  EXPECT_NE(exit_claim(e, st).find("SIGKILL"), std::string::npos);
  st.exec_failed = true;
  EXPECT_NE(exit_claim(e, st).find("could not be started"), std::string::npos);
  RunStatus none;
  EXPECT_EQ(exit_claim(read_exit(none, ""), none), "");
}

}  // namespace
}  // namespace gpualert::classify::detail
