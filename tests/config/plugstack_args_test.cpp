#include "gpualert/config/plugstack_args.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using gpualert::config::parse_plugin_args;

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

TEST(PluginArgs, PartitionsListIsParsed) {
  const auto a = parse_plugin_args(std::vector<std::string>{"default=on", "partitions=gpu,gpu-long"});
  EXPECT_TRUE(a.default_on);
  EXPECT_EQ(a.partitions, (std::vector<std::string>{"gpu", "gpu-long"}));
  EXPECT_FALSE(parse_plugin_args(std::vector<std::string>{"partitions="}).errors.empty());
}

TEST(Plugstack, FollowsIncludesAndFindsTheLineWithItsNumber) {
  const auto dir = std::filesystem::temp_directory_path() / ("plugstack-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "plugstack.conf.d");
  {
    std::ofstream(dir / "plugstack.conf") << "# site plugins\noptional /usr/lib/other.so x=1\n"
                                          << "include plugstack.conf.d/*.conf\nbogus line\n";
    std::ofstream(dir / "plugstack.conf.d" / "gpualert.conf")
        << "# off until the admin says\n\nrequired /usr/lib/slurm/gpualert.so default=on partitions=gpu colour=red\n";
  }
  const auto scan = gpualert::config::scan_plugstack(dir / "plugstack.conf");
  ASSERT_EQ(scan.entries.size(), 1u);
  const auto& e = scan.entries[0];
  EXPECT_EQ(e.line, 3);
  EXPECT_TRUE(e.required);
  EXPECT_EQ(e.file.filename(), "gpualert.conf");
  EXPECT_EQ(e.args.partitions, std::vector<std::string>{"gpu"});
  ASSERT_EQ(e.args.errors.size(), 1u);  // colour=red
  EXPECT_EQ(scan.files_read.size(), 2u);
  ASSERT_EQ(scan.problems.size(), 1u);
  EXPECT_NE(scan.problems[0].find("plugstack.conf:4"), std::string::npos) << scan.problems[0];
  std::filesystem::remove_all(dir);
}

TEST(PluginArgs, DefaultOnCanBeNarrowedToPartitions) {
  using gpualert::config::on_by_default;
  const auto all = parse_plugin_args(std::vector<std::string>{"default=on"});
  EXPECT_TRUE(on_by_default(all, "cpu"));
  const auto some = parse_plugin_args(std::vector<std::string>{"default=on", "partitions=gpu"});
  EXPECT_TRUE(on_by_default(some, "gpu"));
  EXPECT_FALSE(on_by_default(some, "cpu"));
  EXPECT_FALSE(on_by_default(some, ""));
  EXPECT_FALSE(on_by_default(parse_plugin_args(std::vector<std::string>{"partitions=gpu"}), "gpu"));
}

TEST(PluginArgs, OffKeepsTheOptionAndDoesNothing) {
  const auto a = parse_plugin_args(std::vector<std::string>{"off", "default=on"});
  EXPECT_TRUE(a.off);
  EXPECT_TRUE(a.errors.empty());
  EXPECT_FALSE(parse_plugin_args(std::vector<std::string>{"default=on"}).off);
  EXPECT_FALSE(parse_plugin_args(std::vector<std::string>{"off=yes"}).errors.empty());
}
