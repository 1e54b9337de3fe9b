// The channels file: its lines, and the strictness a file of secrets needs.
#include "gpualert/notifier/channel_book.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "test_support.hpp"

namespace gpualert::notify {
namespace {

TEST(ChannelBook, ReadsChannelsAndNamesBadLinesWithoutTheirUrls) {
  const ChannelBook b = parse_channel_book(
      "# comment\n\nslack:team-ml https://hooks.slack.com/services/T/B/secret1\r\n"
      "teams:ops http://127.0.0.1:8080/x\n"
      "irc:ops https://x/secret2\n"
      "webhook:t https://x/secret3 extra\n"
      "webhook:u ftp://x/secret4\n"
      "webhook:v https://x/sec\"ret5\n"
      "slack:team-ml https://hooks.slack.com/services/T/B/secret6\n");
  ASSERT_EQ(b.urls.size(), 2u);
  EXPECT_EQ(b.urls.at("slack:team-ml"), "https://hooks.slack.com/services/T/B/secret6");
  EXPECT_EQ(b.urls.at("teams:ops"), "http://127.0.0.1:8080/x");
  ASSERT_EQ(b.problems.size(), 5u);
  EXPECT_NE(b.problems[0].find("line 5:"), std::string::npos) << b.problems[0];
  for (const auto& p : b.problems) EXPECT_EQ(p.find("secret"), std::string::npos) << p;
}

TEST(ChannelBook, TheFileMustBePrivate) {
  testing::TempDir dir;
  const auto path = dir / "channels.conf";
  testing::write_bytes(path, "slack:a https://x/y\n");
  ::chmod(path.c_str(), 0644);
  std::string why;
  EXPECT_FALSE(read_channel_book(path, why));
  EXPECT_NE(why.find("accessible by group or others"), std::string::npos) << why;
  ::chmod(path.c_str(), 0600);
  const auto b = read_channel_book(path, why);
  ASSERT_TRUE(b) << why;
  EXPECT_EQ(b->urls.size(), 1u);
  ASSERT_EQ(::symlink(path.c_str(), (dir / "link").c_str()), 0);
  EXPECT_FALSE(read_channel_book(dir / "link", why));
}

}  // namespace
}  // namespace gpualert::notify
