#include "option_value.hpp"

#include <gtest/gtest.h>

using gpualert::spank::parse_option_value;

TEST(OptionValue, AllSpellingsOfNoArgument) {
  std::string why;
  for (const char* raw : {static_cast<const char*>(nullptr), "", "(null)", "on"}) {
    const auto v = parse_option_value(raw, why);
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->given);
    EXPECT_FALSE(v->off);
    EXPECT_TRUE(v->to.empty());
  }
  EXPECT_TRUE(parse_option_value("off", why)->off);
}

TEST(OptionValue, RecipientsAreChecked) {
  std::string why;
  const auto v = parse_option_value("me@example.org, team@example.org", why);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->to.size(), 2u);
  for (const char* hostile : {"../../etc", "a@b\r\nBcc: c@d", "$(reboot)", "x@y;rm -rf /"}) {
    EXPECT_FALSE(parse_option_value(hostile, why)) << hostile;
    EXPECT_NE(why.find("--gpualert"), std::string::npos);
  }
  EXPECT_FALSE(parse_option_value(std::string(2000, 'a').c_str(), why));
}
