// `scontrol -o show job` records whose owner wrote Slurm's own keys into the
// free-text fields (JobName, Command, WorkDir, Comment, StdOut...).
#include <gtest/gtest.h>

#include "controller_view.hpp"

using namespace gpualert::epilog;

namespace {

// Slurm 22.05's one-line record, cut to the fields around the ones read.
std::string record(const std::string& name, int restarts = 0, const std::string& command = "/home/alice/train.sh",
                   const std::string& mail = " MailUser=alice@example.org MailType=END,FAIL") {
  return "JobId=57 JobName=" + name +
         " UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A Priority=1 Nice=0 Account=(null) QOS=normal"
         " JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=" + std::to_string(restarts) +
         " BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:05 TimeLimit=UNLIMITED TimeMin=N/A"
         " Partition=debug AllocNode:Sid=vm:1234 NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=1"
         " Command=" + command + " WorkDir=/home/alice StdErr=/home/alice/slurm-57.out StdIn=/dev/null"
         " StdOut=/home/alice/slurm-57.out Power=" + mail + " \n";
}

}  // namespace

TEST(ControllerView, ReadsRestartsAndMailUser) {
  const auto v = parse_controller_view(record("train", 3));
  EXPECT_EQ(v.restarts, 3);
  EXPECT_EQ(v.mail_user, std::vector<std::string>{"alice@example.org"});
  const auto none = parse_controller_view(record("train", 0, "/bin/true", ""));
  EXPECT_EQ(none.restarts, 0);
  EXPECT_TRUE(none.mail_user.empty());
}

TEST(ControllerView, ARestartsKeyInTheNameIsNotBelieved) {
  // The old reader took the first " Restarts=": this name made it see a requeue.
  EXPECT_EQ(parse_controller_view(record("x Restarts=9")).restarts, std::nullopt);
  // A whole forged block, as the real one looks.
  const std::string block =
      "x UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A Priority=1 Nice=0 Account=(null) QOS=normal"
      " JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=9 BatchFlag=1 Reboot=0 ExitCode=0:0";
  EXPECT_EQ(parse_controller_view(record(block)).restarts, std::nullopt);
  // After the real key, in the command line.
  EXPECT_EQ(parse_controller_view(record("t", 0, "/bin/x Requeue=1 Restarts=9 BatchFlag=1")).restarts, std::nullopt);
}

TEST(ControllerView, TextThatOnlyLooksLikeAKeyIsHarmless) {
  // No space before it: not a key of the record; the real one is read.
  EXPECT_EQ(parse_controller_view(record("x\nRestarts=9")).restarts, 0);
  EXPECT_EQ(parse_controller_view(record("Restarts=9")).restarts, 0);
}

TEST(ControllerView, AForgedMailUserBesideTheRealOneIsNotBelieved) {
  const auto v = parse_controller_view(record("x MailUser=root@evil.example MailType=ALL"));
  EXPECT_TRUE(v.mail_user.empty());
  EXPECT_EQ(v.restarts, 0);
}

TEST(ControllerView, MailUserMustBeAPlainAddressList) {
  EXPECT_TRUE(parse_controller_view(record("t", 0, "/bin/true", " MailUser=a@b;touch MailType=END")).mail_user.empty());
  EXPECT_TRUE(parse_controller_view(record("t", 0, "/bin/true", " MailUser=(null) MailType=END")).mail_user.empty());
  EXPECT_TRUE(parse_controller_view(record("t", 0, "/bin/true", " MailUser=a@b.org x MailType=END")).mail_user.empty());
  EXPECT_EQ(parse_controller_view(record("t", 0, "/bin/true", " MailUser=a@b.org,c@d.org MailType=END")).mail_user.size(), 2u);
}

TEST(ControllerView, MalformedRecordsGiveNothing) {
  EXPECT_EQ(parse_controller_view("slurm_load_jobs error: Invalid job id specified\n").restarts, std::nullopt);
  std::string r = record("t");
  r.replace(r.find("Restarts=0"), 10, "Restarts=0x");
  EXPECT_EQ(parse_controller_view(r).restarts, std::nullopt);
  // Two records (a heterogeneous job): which one is this run's is not guessed.
  EXPECT_EQ(parse_controller_view(record("a") + record("b")).restarts, std::nullopt);
}

TEST(ControllerView, ReadsTheOutputPathsWithSpacesButNotForgedOnes) {
  const auto v = parse_controller_view(record("train"));
  EXPECT_EQ(v.std_out, "/home/alice/slurm-57.out");
  EXPECT_EQ(v.std_err, "/home/alice/slurm-57.out");
  std::string spaced = record("train");
  spaced.replace(spaced.find("StdOut=/home/alice/slurm-57.out"), 31, "StdOut=/home/alice/my run.out");
  EXPECT_EQ(parse_controller_view(spaced).std_out, "/home/alice/my run.out");
  // A name that repeats the key: the path is unknown, never guessed.
  EXPECT_EQ(parse_controller_view(record("a StdOut=/etc/x Power=")).std_out, "");
}

TEST(ControllerView, ReadsHetJobFieldsOnlyBeforeTheOwnersText) {
  std::string het = record("train");
  het.replace(0, 22, "JobId=58 HetJobId=57 HetJobOffset=1 JobName=train HetJobIdSet=57-58");
  const auto v = parse_controller_view(het);
  EXPECT_EQ(v.het_job_id, 57u);
  EXPECT_EQ(v.het_job_offset, 1u);
  EXPECT_EQ(v.het_job_id_set, "57-58");
  // The same words in the job name are the owner's: not a heterogeneous job.
  const auto forged = parse_controller_view(record("x HetJobId=1 HetJobOffset=0"));
  EXPECT_EQ(forged.het_job_id, std::nullopt);
}

TEST(ControllerView, AnArrayTaskIsKnownByItsArrayAndIndexNotByANameThatMimicsThem) {
  std::string r = record("train");
  r.replace(0, std::string("JobId=57 ").size(), "JobId=84 ArrayJobId=65 ArrayTaskId=19 ");
  const auto v = parse_controller_view(r);
  EXPECT_EQ(v.array_job_id, "65");
  EXPECT_EQ(v.array_task_id, "19");
  // The owner's name cannot make a plain job an array task.
  const auto forged = parse_controller_view(record("x ArrayJobId=1 ArrayTaskId=2"));
  EXPECT_EQ(forged.array_job_id, "");
  EXPECT_EQ(forged.array_task_id, "");
}

TEST(ControllerView, ArrayTasksMailFollowsTheOwnersMailType) {
  EXPECT_FALSE(parse_controller_view(record("train")).array_tasks_mail);
  EXPECT_TRUE(parse_controller_view(record("train", 0, "/bin/true", " MailUser=a@b MailType=FAIL,ARRAY_TASKS"))
                  .array_tasks_mail);
}
