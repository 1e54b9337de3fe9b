#include "gpualert/common/stream_index.hpp"

#include <gtest/gtest.h>

using gpualert::parse_stream_segment;

TEST(StreamIndex, ReadsWhatLogWriterWritesAndOlderLinesWithoutATime) {
  const auto s = parse_stream_segment("e 4096 17 2000");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->tag, 'e');
  EXPECT_EQ(s->offset, 4096u);
  EXPECT_EQ(s->length, 17u);
  EXPECT_EQ(s->ms, 2000);
  const auto old = parse_stream_segment("o 0 5");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->ms, -1);
}

TEST(StreamIndex, RefusesWhatIsNotASegment) {
  EXPECT_FALSE(parse_stream_segment(""));
  EXPECT_FALSE(parse_stream_segment("o -1 5 0"));
  EXPECT_FALSE(parse_stream_segment("o 5"));
  EXPECT_FALSE(parse_stream_segment("garbage here"));
}
