// The verdict's token in SystemComment: what it says, what it refuses, and that the
// other writers' text survives it.
#include <gtest/gtest.h>

#include "gpualert/fleet/accounting_tag.hpp"

using namespace gpualert::fleet;

namespace {

AccountingVerdict infra() {
  AccountingVerdict v;
  v.cls = "gpu_hardware";
  v.attribution = "infra";
  v.confidence = 0.951;
  v.node = "gpu041";
  v.gpus = {"0000:3b:00", "0000:5e:00"};
  v.bad = {"0000:3b:00"};
  v.version = "0.1.0";
  return v;
}

TEST(AccountingTag, RoundTripsAndReadsInPlainSacct) {
  const std::string t = format_tag(infra());
  EXPECT_EQ(t, "gpualert1:class=gpu_hardware;attr=infra;conf=0.95;node=gpu041;bad=0000:3b:00;"
               "gpus=0000:3b:00+0000:5e:00;v=0.1.0");
  const auto back = parse_tag(t);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cls, "gpu_hardware");
  EXPECT_EQ(back->attribution, "infra");
  EXPECT_NEAR(back->confidence, 0.95, 1e-9);
  EXPECT_EQ(back->gpus, infra().gpus);
  EXPECT_EQ(back->bad, infra().bad);
}

TEST(AccountingTag, HostileValuesCannotBreakTheFieldOrTheLine) {
  AccountingVerdict v = infra();
  v.node = "gpu 1|x\nInjected: yes;class=healthy";
  v.version = std::string(500, 'v');
  for (int i = 0; i < 200; ++i) v.gpus.push_back("0000:3b:00");
  const std::string t = format_tag(v);
  EXPECT_LE(t.size(), kMaxTokenBytes);
  EXPECT_EQ(t.find_first_of(" |\n\t\r"), std::string::npos) << t;
  const auto back = parse_tag(t);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cls, "gpu_hardware");  // the node's ";class=" did not survive as a key
}

TEST(AccountingTag, OtherWritersTextStays) {
  const std::string tag = format_tag(infra());
  // Nothing there yet; a burst buffer note; our own older token (a requeued job).
  EXPECT_EQ(merge_tag("", tag), tag);
  EXPECT_EQ(merge_tag("bb: staged 3 files\n", tag), "bb: staged 3 files " + tag);
  const std::string older = "gpualert1:class=cuda_oom;attr=job;conf=0.90;node=gpu007;v=0.0.9";
  EXPECT_EQ(merge_tag("bb: staged " + older + " tail", tag), "bb: staged " + tag + " tail");
  // A token that only looks like ours inside another word is not ours.
  EXPECT_EQ(merge_tag("xgpualert1:class=a;conf=1", tag), "xgpualert1:class=a;conf=1 " + tag);
  EXPECT_FALSE(parse_tag("xgpualert1:class=a;conf=1"));
}

TEST(AccountingTag, MalformedTokensAreNotTrusted) {
  EXPECT_FALSE(parse_tag(""));
  EXPECT_FALSE(parse_tag("JS1:H4sIAAAAAAAAA6tWSs7PS8tMB"));
  EXPECT_FALSE(parse_tag("gpualert1:attr=job;conf=0.5"));            // no class
  EXPECT_FALSE(parse_tag("gpualert1:class=cuda_oom;attr=job"));      // no confidence
  EXPECT_FALSE(parse_tag("gpualert1:class=../../x;conf=0.5"));       // no class id
  EXPECT_TRUE(parse_tag("note gpualert1:class=cuda_oom;conf=0.5"));  // after another writer's words
}

}  // namespace
