// Destination lists: mail addresses and channels, each checked before anything is sent.
#include "gpualert/config/destinations.hpp"

#include <gtest/gtest.h>

#include "gpualert/config/recipient_policy.hpp"

using namespace gpualert::config;

TEST(Destinations, AddressesAndChannelsTogether) {
  std::vector<std::string> out;
  std::string why;
  ASSERT_TRUE(parse_destination_list(" mailto:a@x.org, slack:team-ml ,b@y.org,teams:gpu.admins, webhook:t_1, a@x.org",
                                     out, why))
      << why;
  EXPECT_EQ(out, (std::vector<std::string>{"a@x.org", "slack:team-ml", "b@y.org", "teams:gpu.admins", "webhook:t_1"}));
  EXPECT_EQ(mail_addresses(out), (std::vector<std::string>{"a@x.org", "b@y.org"}));
  EXPECT_EQ(channels(out), (std::vector<std::string>{"slack:team-ml", "teams:gpu.admins", "webhook:t_1"}));
  EXPECT_EQ(channel_kind("mattermost:ops"), "mattermost");
}

TEST(Destinations, HostileOrUnknownEntriesAreRefused) {
  std::vector<std::string> out;
  std::string why;
  for (const char* bad : {"slack:../x", "slack:", "slack:-rf", "irc:ops", "slack:a b", "slack:x\r\nBcc: e@x",
                          "mailto:", "mailto:slack:x", "https://hooks.slack.com/services/T/B/x",
                          "slack:0123456789012345678901234567890123456789012345678901234567890123456789"}) {
    EXPECT_FALSE(parse_destination_list(bad, out, why)) << bad;
    EXPECT_NE(why.find("neither a mail address nor a channel"), std::string::npos) << bad << ": " << why;
  }
  EXPECT_FALSE(parse_destination_list(" , ", out, why));
}

TEST(Destinations, TheSitesPatternsRestrictChannelsToo) {
  RecipientPolicy p;
  EXPECT_FALSE(refuse_recipients({"slack:team-ml"}, p, "alice")) << "a defined channel needs no pattern";
  p.allow = {"*@example.org"};
  EXPECT_TRUE(refuse_recipients({"slack:team-ml"}, p, "alice"));
  p.allow = {"*@example.org", "slack:*"};
  EXPECT_FALSE(refuse_recipients({"slack:team-ml", "a@example.org"}, p, "alice"));
  EXPECT_TRUE(refuse_recipients({"teams:ops"}, p, "alice"));
}
