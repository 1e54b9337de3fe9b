#include "plugin_args.hpp"

#include <gtest/gtest.h>

using gpualert::spank::parse_plugin_args;

TEST(PluginArgs, KnownKeysAndDefaults) {
  const char* argv[] = {"default=on", "spool=/srv/gpualert", "conf=/etc/ga.conf"};
  const auto a = parse_plugin_args(3, const_cast<char**>(argv));
  EXPECT_TRUE(a.default_on);
  EXPECT_EQ(a.spool, "/srv/gpualert");
  EXPECT_EQ(a.conf, "/etc/ga.conf");
  EXPECT_TRUE(a.errors.empty());
  const auto d = parse_plugin_args(0, nullptr);
  EXPECT_FALSE(d.default_on);
  EXPECT_EQ(d.spool, "/var/spool/gpualert");
}

TEST(PluginArgs, UnknownKeysAndBadValuesAreReportedNotFatal) {
  const char* argv[] = {"colour=blue", "default=maybe", "spool=relative", "spool=/a/../b"};
  const auto a = parse_plugin_args(4, const_cast<char**>(argv));
  EXPECT_EQ(a.errors.size(), 4u);
  EXPECT_EQ(a.spool, "/var/spool/gpualert");  // the bad values left the defaults
  EXPECT_FALSE(a.default_on);
}

TEST(PluginArgs, RecipientRuleAndLogCaps) {
  const char* argv[] = {"allow_to=*@example.org,*@*.example.org", "max_to=2", "log_head=1M", "log_job=32M",
                        "spool_floor=16M"};
  const auto a = parse_plugin_args(5, const_cast<char**>(argv));
  EXPECT_TRUE(a.errors.empty());
  EXPECT_EQ(a.log_job, 32u << 20);
  EXPECT_EQ(a.spool_floor, 16u << 20);
  EXPECT_EQ(a.recipients.allow, (std::vector<std::string>{"*@example.org", "*@*.example.org"}));
  EXPECT_EQ(a.recipients.max, 2u);
  EXPECT_EQ(a.log_head, 1u << 20);
}

TEST(PluginArgs, BadLimitsAreReported) {
  const char* argv[] = {"max_to=lots", "log_head=12Q", "log_tail=64K"};
  const auto a = parse_plugin_args(3, const_cast<char**>(argv));
  EXPECT_EQ(a.errors.size(), 2u);
  EXPECT_EQ(a.log_tail, 64u << 10);
  EXPECT_EQ(a.recipients.max, 5u);
}
