// Jobs from sacct --json: the fields that matter, in 22.05's shape and in later ones,
// never a step's fields for the job's, and a clear error for what is not sacct JSON.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "gpualert/fleet/sacct_json.hpp"

using namespace gpualert::fleet;

namespace {

std::vector<JobRecord> read(const std::string& text) {
  std::vector<JobRecord> out;
  read_sacct_json(text, [&](JobRecord&& j) { out.push_back(std::move(j)); });
  return out;
}

// Trimmed from a real 22.05 record: the step carries its own nodes, time and TRES.
const char* k2205 = R"({"meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "errors": [], "warnings": [],
 "jobs": [
  {"account": "ml", "comment": {"administrator": "JS1:abc", "job": null,
     "system": "gpualert1:class=cuda_oom;attr=job;conf=0.95;node=gpu041;gpus=0000:3b:00;v=0.1.0"},
   "array": {"job_id": 0, "task_id": null},
   "time": {"elapsed": 7200, "end": 1790007200, "start": 1790000000, "limit": 1440},
   "job_id": 4242, "name": "train", "nodes": "gpu041", "partition": "gpu",
   "state": {"current": "FAILED", "reason": "None"},
   "steps": [{"time": {"elapsed": 1, "start": 5, "end": 6}, "nodes": {"count": 1, "range": "other"},
              "job_id": 99, "user": "mallory", "state": "COMPLETED",
              "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 64}]}}],
   "tres": {"allocated": [{"type": "cpu", "name": null, "id": 1, "count": 8},
                          {"type": "gres", "name": "gpu", "id": 1001, "count": 2}]},
   "user": "alice"},
  {"job_id": 4243, "user": "bob", "state": {"current": "COMPLETED"}, "comment": {"system": null},
   "array": {"job_id": 4240, "task_id": 3}, "time": {"elapsed": 60}, "tres": {"allocated": []}}
 ]})";

TEST(SacctJson, TheFieldsOf2205) {
  const auto jobs = read(k2205);
  ASSERT_EQ(jobs.size(), 2u);
  const JobRecord& a = jobs[0];
  EXPECT_EQ(a.job_id, 4242u);
  EXPECT_EQ(a.user, "alice");  // not the step's "mallory"
  EXPECT_EQ(a.nodes, "gpu041");
  EXPECT_EQ(a.state, "FAILED");
  EXPECT_EQ(a.elapsed, 7200);
  EXPECT_EQ(a.gpus, 2u);  // not the step's 64
  EXPECT_EQ(a.admin_comment, "JS1:abc");
  ASSERT_TRUE(a.verdict);
  EXPECT_EQ(a.verdict->cls, "cuda_oom");
  EXPECT_FALSE(a.array_task);
  const JobRecord& b = jobs[1];
  EXPECT_EQ(b.state, "COMPLETED");
  EXPECT_FALSE(b.verdict);
  EXPECT_EQ(b.array_job, 4240u);
  ASSERT_TRUE(b.array_task);
  EXPECT_EQ(*b.array_task, 3u);
}

TEST(SacctJson, TheShapesOfLaterReleases) {
  const auto jobs = read(R"({"jobs": [{"job_id": 7, "state": {"current": ["FAILED", "REQUEUED"]},
    "time": {"elapsed": 30, "start": {"set": true, "infinite": false, "number": 1790000000}},
    "array": {"job_id": 0, "task_id": {"set": false, "infinite": false, "number": 0}},
    "tres": {"allocated": [{"type": "gres", "name": "gpu:a100", "count": 4}]}}]})");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, "FAILED");
  EXPECT_EQ(jobs[0].start, 1790000000);
  EXPECT_EQ(jobs[0].gpus, 4u);
}

TEST(SacctJson, WhatIsNotSacctJsonIsAClearError) {
  for (const char* bad : {"", "not json", "{\"jobs\": [ {\"job_id\": 1, ", "{\"errors\": []}", "[1, 2]"}) {
    try {
      (void)read(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("sacct"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
