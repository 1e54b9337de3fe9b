#include "gpualert/config/loader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "gpualert/config/addresses.hpp"

namespace fs = std::filesystem;
using namespace gpualert::config;

namespace {
fs::path write_conf(const std::string& text) {
  const auto p = fs::temp_directory_path() / ("gpualert-conf-" + std::to_string(::getpid()) + ".conf");
  std::ofstream(p) << text;
  return p;
}
}  // namespace

TEST(ParseSize, UnitsAndGarbage) {
  EXPECT_EQ(parse_size("20MiB"), 20ull << 20);
  EXPECT_EQ(parse_size("20M"), 20ull << 20);
  EXPECT_EQ(parse_size("512k"), 512ull << 10);
  EXPECT_EQ(parse_size("1048576"), 1048576ull);
  EXPECT_EQ(parse_size("1.5GiB"), 1610612736ull);
  EXPECT_FALSE(parse_size("lots"));
  EXPECT_FALSE(parse_size("-5"));
  EXPECT_FALSE(parse_size("5 parsecs"));
}

TEST(ParseDuration, SecondsByDefault) {
  EXPECT_EQ(parse_duration("15")->count(), 15000);
  EXPECT_EQ(parse_duration("2.5s")->count(), 2500);
  EXPECT_EQ(parse_duration("500ms")->count(), 500);
  EXPECT_FALSE(parse_duration("soon"));
  EXPECT_FALSE(parse_duration(""));
}

TEST(Addresses, RejectHostileText) {
  EXPECT_TRUE(valid_address("alice@example.org"));
  EXPECT_TRUE(valid_address("alice"));
  EXPECT_FALSE(valid_address("alice@example.org\r\nBcc: x@y"));
  EXPECT_FALSE(valid_address("a b@c"));
  EXPECT_FALSE(valid_address("<a@b>"));
  // Found by fuzz_option_value: "-" and "-oi" passed, and a program could take them for options.
  EXPECT_FALSE(valid_address("-"));
  EXPECT_FALSE(valid_address("-oi"));
  EXPECT_FALSE(valid_address("-falice@example.org"));
  EXPECT_FALSE(valid_address("../../etc"));
  EXPECT_FALSE(valid_address("a;rm -rf@x"));
  EXPECT_TRUE(valid_address("first.last+tag@sub.example.org"));
  std::vector<std::string> out;
  std::string why;
  EXPECT_TRUE(parse_address_list(" a@x , b@y ", out, why));
  EXPECT_EQ(out, (std::vector<std::string>{"a@x", "b@y"}));
  EXPECT_FALSE(parse_address_list("a@x, b c", out, why));
  EXPECT_NE(why.find("b c"), std::string::npos);
  EXPECT_FALSE(parse_address_list(" , ", out, why));
}

TEST(Loader, MalformedLinesAreNamedAndSkipped) {
  const auto p = write_conf("# comment\nto = bob@example.org\nnonsense\nsend_timeout = later\nfoo = 1\n"
                            "attach_budget = 1MiB\n");
  Loader l;
  l.apply_file(p);
  ASSERT_EQ(l.problems().size(), 3u);
  EXPECT_EQ(l.problems()[0].where, p.string() + ":3");
  EXPECT_EQ(l.problems()[1].where, p.string() + ":4");
  EXPECT_NE(l.problems()[2].message.find("unknown setting 'foo'"), std::string::npos);
  EXPECT_EQ(l.settings().to, std::vector<std::string>{"bob@example.org"});
  EXPECT_EQ(l.settings().attach_budget, 1ull << 20);
  EXPECT_EQ(l.settings().send_timeout.count(), 15000);  // the bad value left the default
  fs::remove(p);
}

TEST(Loader, ACommentAfterAValueIsNotPartOfIt) {
  const auto p = write_conf("tail_lines = 40   # lines shown inline\nsmtp_url = smtp://relay:25#x\n"
                            "retry_max = 2592000\n");
  Loader l;
  l.apply_file(p);
  EXPECT_EQ(l.settings().tail_lines, 40);
  EXPECT_EQ(l.settings().smtp_url, "smtp://relay:25#x");  // no space before '#': part of the value
  ASSERT_EQ(l.problems().size(), 1u);  // retry_max past what the sender takes (7 days)
  EXPECT_NE(l.problems()[0].message.find("at most 604800"), std::string::npos) << l.problems()[0].message;
  fs::remove(p);
}

TEST(Loader, TheShippedFileUncommentedIsValid) {
  // What an admin does to the packaged /etc/gpualert/gpualert.conf: remove the '# ' of
  // a setting line. Each must then load without a problem (values as shipped).
  std::ifstream in(GPUALERT_SOURCE_DIR "/etc/gpualert.conf.example");
  ASSERT_TRUE(in);
  std::string line, text;
  int settings = 0;
  while (std::getline(in, line)) {
    if (std::regex_search(line, std::regex("^# [a-z_]+ = "))) {
      text += line.substr(2) + "\n";
      ++settings;
    }
  }
  EXPECT_GT(settings, 10);
  Loader l;
  l.apply_text(text, "uncommented");
  for (const auto& pr : l.problems()) ADD_FAILURE() << pr.text();
}

TEST(Loader, EnvironmentOverridesFileAndFlagsOverrideEnvironment) {
  const auto p = write_conf("to = file@example.org\nsmtp_url = smtp://file:25\n");
  ::setenv("GPUALERT_TO", "env@example.org", 1);
  Loader l;
  l.apply_file(p);
  l.apply_environment();
  EXPECT_EQ(l.settings().to, std::vector<std::string>{"env@example.org"});
  EXPECT_EQ(l.settings().smtp_url, "smtp://file:25");
  l.apply_value("to", "flag@example.org", "--to");
  EXPECT_EQ(l.settings().to, std::vector<std::string>{"flag@example.org"});
  ::unsetenv("GPUALERT_TO");
  fs::remove(p);
}

TEST(Loader, StateDirMovesTheOutboxUnlessOutboxWasSet) {
  Loader l;
  l.apply_value("state_dir", "/srv/ga", "--state-dir");
  EXPECT_EQ(l.settings().outbox, fs::path("/srv/ga/outbox"));
  l.apply_value("outbox", "/srv/box", "--outbox");
  l.apply_value("state_dir", "/srv/other", "--state-dir");
  EXPECT_EQ(l.settings().outbox, fs::path("/srv/box"));
}

TEST(Loader, RejectsNonSmtpUrlsAndKeepsThePrevious) {
  Loader l;
  l.apply_value("smtp_url", "smtp://ok:25", "x");
  l.apply_value("smtp_url", "http://evil", "--smtp");
  EXPECT_EQ(l.settings().smtp_url, "smtp://ok:25");
  ASSERT_EQ(l.problems().size(), 1u);
  EXPECT_EQ(l.problems()[0].where, "--smtp");
}

TEST(Loader, DefaultsNeedNothingConfigured) {
  Loader l;
  EXPECT_TRUE(l.settings().smtp_url.empty());
  ASSERT_EQ(l.settings().to.size(), 1u);
  EXPECT_NE(l.settings().to[0].find('@'), std::string::npos);
  EXPECT_EQ(l.settings().outbox, l.settings().state_dir / "outbox");
}

TEST(Loader, HangAfterIsADurationAndRejectsNonsense) {
  const auto p = write_conf("hang_after = 120\nhang_after = -5\n");
  Loader l;
  l.apply_file(p);
  EXPECT_EQ(l.settings().hang_after.count(), 120000);  // the bad second value kept the first
  ASSERT_EQ(l.problems().size(), 1u);
  EXPECT_EQ(l.problems()[0].where, p.string() + ":2");
  EXPECT_EQ(Loader().settings().hang_after.count(), 300000);
  fs::remove(p);
}
