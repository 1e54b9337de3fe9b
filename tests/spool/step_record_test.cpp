#include "gpualert/spool/step_record.hpp"

#include <gtest/gtest.h>

using namespace gpualert::spool;

TEST(StepRecord, RoundTripsThroughJson) {
  StepRecord r;
  r.job = 12;
  r.step = step_name(0xfffffffbu);
  r.node = "gpu041";
  r.uid = 1001;
  r.gid = 1001;
  r.to = {"a@b"};
  r.tasks.push_back({0, 4242, 35584, task_log_name(r.step, 0), ""});
  r.tasks.push_back({1, 4243, std::nullopt, task_log_name(r.step, 1), ""});
  const StepRecord back = step_from_json(to_json(r));
  EXPECT_EQ(back.step, "batch");
  EXPECT_EQ(back.node, "gpu041");
  ASSERT_EQ(back.tasks.size(), 2u);
  EXPECT_EQ(back.tasks[0].wait_status, 35584);
  EXPECT_FALSE(back.tasks[1].wait_status);
  EXPECT_EQ(back.tasks[0].log, "batch.task0.log");
  EXPECT_EQ(task_log_name("0", 3, 4242), "0.task3.p4242.log");
  EXPECT_EQ(step_file_name("0", "vm", 4242), "step-0.vm.p4242.json");
  EXPECT_EQ(back.to, std::vector<std::string>{"a@b"});
}

TEST(StepRecord, NamesOfSpecialSteps) {
  EXPECT_EQ(step_name(0), "0");
  EXPECT_EQ(step_name(0xfffffffcu), "extern");
  EXPECT_EQ(step_file_name("0", "../x"), "step-0..._x.json");
}

TEST(StepRecord, MalformedRecordThrows) {
  EXPECT_ANY_THROW(step_from_json(nlohmann::json::parse(R"({"job": 1})")));
}
