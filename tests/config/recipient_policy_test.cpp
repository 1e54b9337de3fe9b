#include "gpualert/config/recipient_policy.hpp"

#include <gtest/gtest.h>


using gpualert::config::RecipientPolicy;
using gpualert::config::refuse_recipients;

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
  RecipientPolicy p;
  p.allow = {"*@example.org", "*@*.example.org"};
  p.max = 2;
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
