// The digit-shaped progress cues found per line (line_shape.hpp): each shape the
// progress tracker reads must be cued, and ordinary text must not be.
#include <gtest/gtest.h>

#include "line_shape.hpp"
#include "progress_thinner.hpp"

using gpualert::classify::detail::kCueStamp;
using gpualert::classify::detail::kCueStep;
using gpualert::classify::detail::shape_cues;

TEST(LineShape, ABracketedStepAtTheStartOfALineOrOfACrSegment) {
  EXPECT_EQ(shape_cues("[12] loss 2.0"), kCueStep);
  EXPECT_EQ(shape_cues("  [ 7] loss 2.0"), kCueStep);
  EXPECT_EQ(shape_cues("old bar\r[ 9] loss"), kCueStep);
  EXPECT_EQ(shape_cues("x [12] loss"), 0);  // not at the start
  EXPECT_EQ(shape_cues("[rank0] loss"), 0);
  EXPECT_EQ(shape_cues("["), 0);
}

TEST(LineShape, AFractionFollowedByABracketOrParenthesis) {
  EXPECT_EQ(shape_cues(" 45%|####   | 450/1000 [01:02<01:10]"), kCueStep);
  EXPECT_EQ(shape_cues("epoch 3/10 (train)"), kCueStep);
  EXPECT_EQ(shape_cues("/usr/lib/x 3/10"), 0);
  EXPECT_EQ(shape_cues("path/to/file [x]"), 0);  // no digit after the slash
  EXPECT_EQ(shape_cues("ends in 3/"), 0);
}

TEST(LineShape, ADateAndTimeAnywhereInTheLine) {
  EXPECT_EQ(shape_cues("2026-11-24 10:03:03 INFO ok"), kCueStamp);
  EXPECT_EQ(shape_cues("I [2026/11/24T10:03:03.5] ok"), kCueStamp);
  EXPECT_EQ(shape_cues("at 10:03:03 only"), 0);
  EXPECT_EQ(shape_cues("2026-11-24 10:03"), 0);  // cut short
  EXPECT_EQ(shape_cues("2026-11-24_10:03:03"), 0);
  EXPECT_EQ(shape_cues(":::: 12:: 2026-11-24 10:03:0"), 0);
  EXPECT_EQ(shape_cues("[ 5] 2026-11-24 10:03:03"), kCueStep | kCueStamp);
}
