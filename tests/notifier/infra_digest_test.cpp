// The admins' messages of cluster faults (notifier/infra_digest.hpp), on a real outbox:
// one message per node and GPU gathering every job the fault ended, at most one per
// window, nothing lost, and the drain line to copy (never run).
#include <gtest/gtest.h>

#include <filesystem>

#include "gpualert/notifier/digest.hpp"
#include "gpualert/notifier/infra_digest.hpp"
#include "decode_helpers.hpp"
#include "test_support.hpp"

using namespace gpualert::notify;
namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;
using std::chrono::seconds;

namespace {

Message report(const std::string& job, const std::string& user, const std::string& node = "gpu041",
               const std::string& gpu = "0000:3b:00") {
  Message m;
  m.envelope = {"gpualert@gpu041", {"hpc-admins@example.org"}};
  m.subject = "report";
  m.body_text = "held\n";
  m.extra_headers = {{"X-Gpualert-Notice", "cluster-fault"}};
  m.record = {{"job", job},   {"user", user}, {"class", "gpu_hardware"}, {"attribution", "infra"}, {"node", node},
              {"gpu", gpu},   {"exit", "1:0"}, {"ended", "2026-11-27T14:0" + job.substr(job.size() - 1) + ":00Z"},
              {"evidence", "[kmsg] NVRM: Xid (PCI:" + gpu + "): 79, pid=12, GPU has fallen off the bus.\n"},
              {"cause", "The GPU fell off the bus: a hardware or driver fault, not the job's code.\n"}};
  return m;
}

std::string body(const fs::path& eml) {
  const std::string raw = gpualert::notify::testing::read_bytes(eml);
  const std::string marker = "quoted-printable\r\n\r\n";
  const auto at = raw.find(marker) + marker.size();
  return gpualert::notify::testing::qp_decode(raw.substr(at, raw.find("\r\n--", at) - at));
}

struct Box {
  gpualert::notify::testing::TempDir t;
  Outbox box{t.path()};
};

}  // namespace

TEST(InfraDigest, EightJobsOnOneFaultedGpuAreOneMessageListingThemAll) {
  Box b;
  InfraPolicy p;
  p.gather = seconds(60);
  const std::string key = infra_key("gpu041", "0000:3b:00");
  for (int i = 1; i <= 8; ++i) b.box.store(report("100" + std::to_string(i), i % 2 ? "alice" : "bob"), key);
  // A report of another GPU of the same node is another message.
  b.box.store(report("2001", "carol", "gpu041", "0000:86:00"), infra_key("gpu041", "0000:86:00"));
  // Nothing is sent by itself: every report is held.
  for (const auto& m : b.box.pending()) EXPECT_TRUE(is_infra_key(m.digest_key)) << m.id;
  EXPECT_TRUE(assemble_infra(b.box, p, Clock::now()).empty());  // still gathering
  const auto made = assemble_infra(b.box, p, Clock::now() + seconds(61));
  ASSERT_EQ(made.size(), 2u);
  const auto& m = made[0].record.at("gpu") == "0000:3b:00" ? made[0] : made[1];
  const std::string text = body(m.eml);
  EXPECT_NE(text.find("ended 8 jobs of 2 users on node gpu041, GPU 0000:3b:00"), std::string::npos) << text;
  for (int i = 1; i <= 8; ++i) EXPECT_NE(text.find("100" + std::to_string(i)), std::string::npos) << i;
  // The cited kernel line once, not eight times.
  const std::string cited = "NVRM: Xid (PCI:0000:3b:00): 79";
  EXPECT_EQ(text.find(cited), text.rfind(cited)) << text;
  EXPECT_NE(text.find("scontrol update nodename=gpu041 state=drain reason=\"gpualert: GPU 0000:3b:00: gpu_hardware, 8 jobs\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("never drains"), std::string::npos);
  const std::string raw = gpualert::notify::testing::read_bytes(m.eml);
  EXPECT_NE(raw.find("X-Gpualert-Infra: infra:gpu041:0000:3b:00"), std::string::npos);
  EXPECT_NE(raw.find("To: hpc-admins@example.org"), std::string::npos);
  // The reports moved to sent/, each naming the message that carried it: nothing lost.
  ASSERT_EQ(b.box.pending().size(), 2u);  // the two admins' messages
  std::size_t carried = 0;
  for (const auto& e : fs::directory_iterator(b.t.path() / "sent"))
    if (e.path().extension() == ".json" && gpualert::notify::testing::read_bytes(e.path()).find(m.id) != std::string::npos)
      ++carried;
  EXPECT_EQ(carried, 8u);
}

TEST(InfraDigest, AtMostOneMessagePerKeyPerWindowAndTheLaterJobsWaitForIt) {
  Box b;
  InfraPolicy p;
  p.gather = seconds(10);
  p.window = seconds(3600);
  const std::string key = infra_key("gpu041", "0000:3b:00");
  b.box.store(report("1001", "alice"), key);
  ASSERT_EQ(assemble_infra(b.box, p, Clock::now() + seconds(11)).size(), 1u);
  b.box.store(report("1002", "bob"), key);
  b.box.store(report("1003", "bob"), key);
  const auto due = infra_due(b.box, key, p, Clock::now());
  ASSERT_TRUE(due.has_value());
  EXPECT_GT(*due, Clock::now() + seconds(3500));  // the window of the first message
  EXPECT_TRUE(assemble_infra(b.box, p, Clock::now() + seconds(60)).empty());
  const auto later = assemble_infra(b.box, p, Clock::now() + seconds(3601));
  ASSERT_EQ(later.size(), 1u);
  const std::string text = body(later[0].eml);
  EXPECT_NE(text.find("ended 2 jobs of 1 user"), std::string::npos) << text;
}

TEST(InfraDigest, TheUsersBurstDigestsNeverTakeAnAdminsReport) {
  Box b;
  b.box.mark_sender_pass();
  const std::string key = infra_key("gpu041", "");
  EXPECT_EQ(key, "infra:gpu041:-");
  b.box.store(report("1001", "alice", "gpu041", ""), key);
  DigestPolicy d;
  d.quiet = seconds(0);
  EXPECT_TRUE(assemble_digests(b.box, d, Clock::now() + seconds(3600)).empty());
  ASSERT_EQ(b.box.pending().size(), 1u);
  EXPECT_EQ(b.box.pending().front().digest_key, key);
}

TEST(InfraDigest, AHostileNodeNameCannotInjectIntoTheDrainLine) {
  Box b;
  InfraPolicy p;
  p.gather = seconds(0);
  const std::string node = "gpu041\"; rm -rf / #\nX";
  const std::string key = infra_key(node, "0000:3b:00");
  b.box.store(report("1001", "alice", node), key);
  const auto made = assemble_infra(b.box, p, Clock::now() + seconds(1));
  ASSERT_EQ(made.size(), 1u);
  const std::string text = body(made[0].eml);
  EXPECT_NE(text.find("scontrol update nodename=gpu041rm-rfX state=drain"), std::string::npos) << text;
}
