// Renderings: JSON carries every key of the contract; text is one readable screen.
#include <gtest/gtest.h>

#include "gpualert/classifier/verdict_format.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

TEST(Format, JsonHasAllKeys) {
  const Verdict v = run("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB (GPU 0; 31.74 GiB total capacity; "
                        "30.9 GiB already allocated; 1.44 GiB free)\n[rank0]: NCCL error: unhandled system error\n",
                        1);
  const auto j = to_json(v);
  for (const char* k : {"class", "family", "attribution", "confidence", "shows", "implies", "cannot_decide", "remedy",
                        "evidence", "secondary", "lines_read", "bytes_read", "partial_scan", "facts", "broader"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["class"], "cuda_oom");
  EXPECT_EQ(j["family"], "gpu");
  EXPECT_EQ(j["attribution"], "job");
  EXPECT_EQ(j["evidence"][0]["line"], 1);
  EXPECT_TRUE(j["evidence"][0].contains("text"));
  EXPECT_TRUE(j["evidence"][0].contains("rule"));
  ASSERT_FALSE(j["secondary"].empty());
  for (const char* k : {"class", "summary", "confidence", "evidence"}) EXPECT_TRUE(j["secondary"][0].contains(k)) << k;
  EXPECT_EQ(j["facts"]["alloc"], "8.00 GiB");
  EXPECT_NE(v.remedy.find("8.00 GiB"), std::string::npos) << v.remedy;
  EXPECT_NE(v.remedy.find("31.74 GiB"), std::string::npos) << v.remedy;
}

TEST(Format, TextIsAScreen) {
  const Verdict v = run("ModuleNotFoundError: No module named 'flash_attn'\n", 1);
  const std::string t = to_text(v);
  EXPECT_EQ(t.rfind("Verdict: missing_module", 0), 0u) << t;
  for (const char* s : {"What the data shows:", "What it implies:", "What it cannot decide:", "Remedy:", "flash_attn"})
    EXPECT_NE(t.find(s), std::string::npos) << s;
  EXPECT_LT(std::count(t.begin(), t.end(), '\n'), 40);
}

TEST(Format, ConfidenceGrowsWithAgreeingWitnesses) {
  const std::string log = "[ 4821.5] Out of memory: Killed process 40822 (python) total-vm:8923144kB\n";
  const double log_only = raw_confidence(log, std::nullopt);
  const double with_exit = raw_confidence(log, -9);
  const double with_slurm = raw_confidence(log, -9, "OUT_OF_MEMORY");
  EXPECT_LT(log_only, with_exit);
  EXPECT_LT(with_exit, with_slurm);
  EXPECT_LE(with_slurm, 1.0);
}

}  // namespace
}  // namespace gpualert::classify::test
