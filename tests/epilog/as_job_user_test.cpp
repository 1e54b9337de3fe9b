#include "as_job_user.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include <cstdlib>

#include "gpualert/classifier/verdict_wire.hpp"

using gpualert::classify::Verdict;
using gpualert::epilog::classify_as_user;

namespace {
constexpr uid_t kNobody = 65534;
}

TEST(AsJobUser, TheWorkRunsAsTheJobsUserAndItsVerdictComesBack) {
  if (::geteuid() != 0) GTEST_SKIP() << "dropping to another user needs root";
  std::string why;
  const auto v = classify_as_user(kNobody, kNobody, [] {
    Verdict w;
    w.cls = "uid " + std::to_string(::getuid()) + " euid " + std::to_string(::geteuid());
    w.facts = {{"alloc", "8.00 GiB"}, {"alloc", "2.00 GiB"}};
    w.confidence = 0.8571;
    w.evidence = {{7, "torch.OutOfMemoryError: \xff not utf-8", "cuda_oom"}};
    return w;
  }, std::chrono::seconds(20), why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->cls, "uid 65534 euid 65534");
  ASSERT_EQ(v->facts.size(), 2u);  // kept whole, duplicates and order included
  EXPECT_EQ(v->facts[1].second, "2.00 GiB");
  EXPECT_DOUBLE_EQ(v->confidence, 0.8571);
  ASSERT_EQ(v->evidence.size(), 1u);
  EXPECT_EQ(v->evidence[0].line, 7u);
}

TEST(AsJobUser, ACrashOrAHangIsReportedNotFatal) {
  if (::geteuid() != 0) GTEST_SKIP() << "dropping to another user needs root";
  std::string why;
  EXPECT_FALSE(classify_as_user(kNobody, kNobody, []() -> Verdict { std::abort(); }, std::chrono::seconds(20), why));
  EXPECT_NE(why.find("signal 6"), std::string::npos) << why;
  EXPECT_FALSE(classify_as_user(kNobody, kNobody, []() -> Verdict {
    ::sleep(30);
    return {};
  }, std::chrono::seconds(1), why));
  EXPECT_NE(why.find("overran"), std::string::npos) << why;
}

TEST(VerdictWire, RejectsWhatIsNotAVerdict) {
  EXPECT_FALSE(gpualert::classify::verdict_from_wire(""));
  EXPECT_FALSE(gpualert::classify::verdict_from_wire("{\"cls\": 1}"));
  Verdict v;
  v.cls = "healthy";
  v.tail = {{3, "done", "tail"}};
  const auto back = gpualert::classify::verdict_from_wire(gpualert::classify::verdict_to_wire(v));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cls, "healthy");
  EXPECT_EQ(back->tail[0].text, "done");
}

TEST(VerdictWire, TheLossCurveCrossesWithItsNonFiniteValues) {
  Verdict v;
  v.cls = "nan_loss";
  v.loss_curve.key = "loss";
  v.loss_curve.total = 9000;
  v.loss_curve.points = {{10, 100, 2.5}, {20, 200, 0.75}, {30, 300, std::nan("")}, {31, 0, INFINITY}};
  const auto back = gpualert::classify::verdict_from_wire(gpualert::classify::verdict_to_wire(v));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->loss_curve.key, "loss");
  EXPECT_EQ(back->loss_curve.total, 9000u);
  ASSERT_EQ(back->loss_curve.points.size(), 4u);
  EXPECT_EQ(back->loss_curve.points[1].line, 20u);
  EXPECT_EQ(back->loss_curve.points[1].step, 200u);
  EXPECT_DOUBLE_EQ(back->loss_curve.points[1].value, 0.75);
  EXPECT_FALSE(std::isfinite(back->loss_curve.points[2].value));
  EXPECT_FALSE(std::isfinite(back->loss_curve.points[3].value));
}
