#include "recipient_policy.hpp"

#include <gtest/gtest.h>

#include "plugin_args.hpp"

using gpualert::spank::RecipientPolicy;
using gpualert::spank::refuse_recipients;

TEST(RecipientPolicy, ALocalNameIsOnlyTheJobsOwnUser) {
  RecipientPolicy p;
  EXPECT_FALSE(refuse_recipients({"alice"}, p, "alice"));
  EXPECT_FALSE(refuse_recipients({"alice@example.org"}, p, "alice"));
  const auto root = refuse_recipients({"root"}, p, "alice");
  ASSERT_TRUE(root);
  EXPECT_NE(root->find("'root'"), std::string::npos) << *root;
  EXPECT_TRUE(refuse_recipients({"alice@example.org", "bob"}, p, "alice"));
}

TEST(RecipientPolicy, SitePatternsAndCount) {
  const char* argv[] = {"allow_to=*@example.org,*@*.example.org", "max_to=2"};
  const auto args = gpualert::spank::parse_plugin_args(2, const_cast<char**>(argv));
  ASSERT_TRUE(args.errors.empty());
  const auto& p = args.recipients;
  EXPECT_FALSE(refuse_recipients({"a@example.org", "b@lab.EXAMPLE.org"}, p, "a"));
  const auto out = refuse_recipients({"a@evil.test"}, p, "a");
  ASSERT_TRUE(out);
  EXPECT_NE(out->find("*@example.org"), std::string::npos) << *out;
  const auto many = refuse_recipients({"a@example.org", "b@example.org", "c@example.org"}, p, "a");
  ASSERT_TRUE(many);
  EXPECT_NE(many->find("at most 2"), std::string::npos) << *many;
  std::vector<std::string> sixty(60, "x@example.org");
  EXPECT_TRUE(refuse_recipients(sixty, RecipientPolicy{}, "x"));
}

TEST(RecipientPolicy, BadLimitsAreReported) {
  const char* argv[] = {"max_to=lots", "log_head=12Q", "log_tail=64K"};
  const auto a = gpualert::spank::parse_plugin_args(3, const_cast<char**>(argv));
  EXPECT_EQ(a.errors.size(), 2u);
  EXPECT_EQ(a.log_tail, 64u << 10);
  EXPECT_EQ(a.recipients.max, 5u);
}
