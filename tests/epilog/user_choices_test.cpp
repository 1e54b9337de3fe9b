// A user's own settings for their Slurm jobs: only their keys are taken, each checked;
// and their choice of what to be told about, raised by the site's floor. (That the file is
// read as the user is tested on the Slurm cluster: test_isolation.)
#include <gtest/gtest.h>

#include "gpualert/config/user_choices.hpp"
#include "gpualert/report/notify_choice.hpp"

namespace gpualert {
namespace {

TEST(UserChoices, OnlyTheUsersKeysAreTakenAndEachIsChecked) {
  const auto c = config::read_user_choices(
      "# mine\nnotify = failures\nto = me@example.org, slack:team-ml\nhtml = no\n"
      "smtp_url = smtp://evil.example.org\nchannels_file = /etc/shadow\nnotify = sometimes\nnonsense\n"
      "digest_window = 30\n");
  ASSERT_TRUE(c.notify);
  EXPECT_EQ(*c.notify, "failures");
  ASSERT_TRUE(c.to);
  EXPECT_EQ(*c.to, (std::vector<std::string>{"me@example.org", "slack:team-ml"}));
  ASSERT_TRUE(c.html);
  EXPECT_FALSE(*c.html);
  ASSERT_TRUE(c.digest_window);
  EXPECT_EQ(c.digest_window->count(), 30000);
  ASSERT_EQ(c.notes.size(), 4u);
  EXPECT_NE(c.notes[0].find("line 5: smtp_url is the site's to set"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[1].find("channels_file is the site's"), std::string::npos) << c.notes[1];
  EXPECT_NE(c.notes[2].find("line 7"), std::string::npos) << c.notes[2];
  EXPECT_NE(c.notes[2].find("must be none, failures, bad or all"), std::string::npos) << c.notes[2];
  EXPECT_NE(c.notes[3].find("line 8: not key = value"), std::string::npos) << c.notes[3];
}

classify::Verdict verdict(const std::string& cls, const std::string& family, const std::string& attribution) {
  classify::Verdict v;
  v.cls = cls;
  v.family = family;
  v.attribution = attribution;
  return v;
}

report::RunFacts exited(int code) {
  report::RunFacts f;
  f.wait_status = code << 8;
  return f;
}

TEST(NotifyChoice, TheUsersChoiceRaisedByTheSitesFloor) {
  const auto ok = verdict("healthy", "healthy", "none");
  const auto nan = verdict("nan_loss", "correctness", "job");
  const auto oom = verdict("cuda_oom", "gpu", "job");
  const auto xid = verdict("gpu_hardware", "gpu", "infra");
  config::Settings s;
  struct Case {
    const char *notify, *floor;
    bool ok0, nan0, oom1, xid1;
  };
  for (const Case& c : {Case{"all", "none", true, true, true, true}, Case{"bad", "none", false, true, true, true},
                        Case{"failures", "none", false, false, true, true}, Case{"none", "none", false, false, false, false},
                        Case{"none", "infra", false, false, false, true}, Case{"none", "failures", false, false, true, true}}) {
    s.notify = c.notify;
    s.notify_floor = c.floor;
    const std::string at = std::string(c.notify) + "/" + c.floor;
    EXPECT_EQ(report::notify_choice(ok, exited(0), s).send, c.ok0) << at;
    EXPECT_EQ(report::notify_choice(nan, exited(0), s).send, c.nan0) << at;
    EXPECT_EQ(report::notify_choice(oom, exited(1), s).send, c.oom1) << at;
    EXPECT_EQ(report::notify_choice(xid, exited(1), s).send, c.xid1) << at;
  }
  s.notify = "failures";
  s.notify_floor = "none";
  EXPECT_EQ(report::notify_choice(ok, exited(0), s).why, "not sent: notify = failures and the run was OK (healthy)");
}

}  // namespace
}  // namespace gpualert
