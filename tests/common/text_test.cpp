#include "gpualert/common/text.hpp"

#include <gtest/gtest.h>

using namespace gpualert;

TEST(OneLine, StripsCrLfAndControls) {
  EXPECT_EQ(one_line("job\r\nBcc: x@y\x01"), "job  Bcc: x@y ");
}

TEST(OneLine, ReplacesInvalidUtf8AndCuts) {
  EXPECT_EQ(one_line("a\xff" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(one_line("h\xC3\xA9llo", 2), "h");  // never cuts inside a character
  EXPECT_EQ(one_line("abcdef", 3), "abc");
}

TEST(PrintableUtf8, KeepsTabsAndNewlines) {
  EXPECT_EQ(printable_utf8("a\tb\nc\x1b[0m"), "a\tb\nc?[0m");
}

TEST(HumanSize, Units) {
  EXPECT_EQ(human_size(512), "512 B");
  EXPECT_EQ(human_size(20ull << 20), "20.0 MiB");
  EXPECT_EQ(human_size(3ull << 30), "3.0 GiB");
}

TEST(HumanDuration, Units) {
  using std::chrono::milliseconds;
  EXPECT_EQ(human_duration(milliseconds(850)), "850ms");
  EXPECT_EQ(human_duration(milliseconds(42'000)), "42s");
  EXPECT_EQ(human_duration(milliseconds(187'000)), "3m07s");
  EXPECT_EQ(human_duration(milliseconds((2 * 3600 + 13 * 60) * 1000)), "2h13m");
}
