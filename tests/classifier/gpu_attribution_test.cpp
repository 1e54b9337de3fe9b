// Kernel GPU records are a run's evidence only on the run's own GPUs (issue 18): a
// neighbour's fault is said, never blamed; the run's GPU already faulty before it began
// makes the node the cause of a failed run; PCI addresses compare in one form.
#include <gtest/gtest.h>

#include "gpualert/events/kernel_events.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

constexpr std::int64_t kStart = 1'800'000'000'000'000;  // microseconds since the epoch
const char* kCudaFailure =
    "step 1 loss 2.31\nstep 2 loss 2.27\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
    "RuntimeError: CUDA error: unspecified launch failure\n";

RunStatus failed_run_on(std::vector<std::string> gpus) {
  RunStatus st = exit_status(1);
  st.events_collected = true;
  st.start_time_us = kStart;
  st.end_time_us = kStart + 3'600'000'000;
  st.gpus = std::move(gpus);
  return st;
}

void xid79_on(RunStatus& st, const std::string& bus, std::int64_t at) {
  st.events.push_back({at, "kmsg", "NVRM: Xid (PCI:" + bus + "): 79, pid=4242, name=python, GPU has fallen off the bus."});
}

std::string secondary_text(const Verdict& v) {
  std::string out;
  for (const auto& f : v.secondary) out += f.cls + ": " + f.summary + "\n";
  return out;
}

TEST(GpuAttribution, AFaultOnTheRunsOwnGpuIsTheCause) {
  RunStatus st = failed_run_on({"0000:3b:00", "0000:5e:00"});
  xid79_on(st, "0000:3b:00", kStart + 60'000'000);
  const Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "gpu_hardware") << to_text_for_test(v);
  EXPECT_EQ(v.attribution, "infra");
}

TEST(GpuAttribution, ANeighboursFaultIsSaidNeverBlamed) {
  RunStatus st = failed_run_on({"0000:5e:00"});
  xid79_on(st, "0000:3b:00", kStart + 60'000'000);
  const Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_NE(v.cls, "gpu_hardware") << to_text_for_test(v);
  EXPECT_EQ(v.attribution, "job");
  const std::string side = secondary_text(v);
  EXPECT_NE(side.find("not this job's"), std::string::npos) << side;
  EXPECT_NE(side.find("0000:3b:00"), std::string::npos) << side;
  EXPECT_NE(side.find("0000:5e:00"), std::string::npos) << side;
  // The same records with the GPUs not known: every record counts, as before.
  st.gpus.clear();
  EXPECT_EQ(builtin().classify_text(kCudaFailure, st).cls, "gpu_hardware");
}

TEST(GpuAttribution, ARecordNamingNoGpuCountsForEveryJobAndSaysSo) {
  RunStatus st = failed_run_on({"0000:5e:00"});
  st.events.push_back({kStart + 60'000'000, "kmsg", "NVRM: GPU has fallen off the bus."});
  const Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "gpu_hardware");
  bool said = false;
  for (const auto& s : v.shows) said |= s.find("names no GPU") != std::string::npos;
  EXPECT_TRUE(said) << to_text_for_test(v);
}

TEST(GpuAttribution, TheRunsGpuFaultyBeforeItBeganMakesTheNodeAlreadySick) {
  RunStatus st = failed_run_on({"0000:3b:00"});
  xid79_on(st, "0000:3b:00", kStart - 2 * 3'600'000'000LL);  // two hours before the start
  const Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "gpu_hardware") << to_text_for_test(v);
  EXPECT_EQ(v.attribution, "infra");
  bool said = false;
  for (const auto& s : v.shows) said |= s.find("already sick") != std::string::npos && s.find("0000:3b:00") != std::string::npos;
  EXPECT_TRUE(said) << to_text_for_test(v);
  bool cited = false;
  for (const auto& c : v.evidence) cited |= c.text.find("Xid (PCI:0000:3b:00): 79") != std::string::npos;
  EXPECT_TRUE(cited) << to_text_for_test(v);
}

TEST(GpuAttribution, ARecordTheJobStartSawIsBeforeTheRunWhateverItsStampSays) {
  // A second before the start by its stamp (within the slack a stamp gets), but the
  // prolog saw it already in the ring buffer: the node was sick before, not during.
  RunStatus st = failed_run_on({"0000:3b:00"});
  st.events.push_back({kStart - 1'000'000, "kmsg (before the job)",
                       "NVRM: Xid (PCI:0000:3b:00): 48, pid=1, An uncorrectable double bit error (DBE) has been detected.",
                       true});
  Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "gpu_hardware") << to_text_for_test(v);
  bool said = false;
  for (const auto& s : v.shows) said |= s.find("already sick") != std::string::npos;
  EXPECT_TRUE(said) << to_text_for_test(v);
  // The same record not known to precede: by its stamp it falls in the run.
  st.events.back().before_start = false;
  v = builtin().classify_text(kCudaFailure, st);
  said = false;
  for (const auto& s : v.shows) said |= s.find("already sick") != std::string::npos;
  EXPECT_FALSE(said) << to_text_for_test(v);
}

TEST(GpuAttribution, AnotherNodesRecordSaysItselfWhetherItNamesTheJobsGpuThere) {
  // A two-node job. On node 2 a neighbour's GPU 0000:86:00 faulted; here 0000:86:00 is
  // the job's. Node 2's helper says the record is not the job's there: it is not blamed.
  RunStatus st = failed_run_on({"0000:3b:00", "0000:86:00"});
  st.events.push_back({kStart + 60'000'000, "n2: kmsg",
                       "NVRM: Xid (PCI:0000:86:00): 79, pid=4242, name=python, GPU has fallen off the bus.", false, false});
  Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_NE(v.cls, "gpu_hardware") << to_text_for_test(v);
  EXPECT_NE(secondary_text(v).find("not this job's"), std::string::npos) << secondary_text(v);
  // The job's GPU on node 2, though this node's list does not name it: the cause.
  st.gpus = {"0000:5e:00"};
  st.events.back().on_job_gpu = true;
  v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "gpu_hardware") << to_text_for_test(v);
  EXPECT_EQ(v.attribution, "infra");
}

TEST(GpuAttribution, AnEarlierFaultDoesNotOverruleTheJobsOwnError) {
  RunStatus st = failed_run_on({"0000:3b:00"});
  xid79_on(st, "0000:3b:00", kStart - 3'600'000'000LL);
  const Verdict v = builtin().classify_text(
      "Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n"
      "ModuleNotFoundError: No module named 'flash_attn'\n",
      st);
  EXPECT_EQ(v.cls, "missing_module") << to_text_for_test(v);
  EXPECT_TRUE(has_secondary(v, "gpu_hardware"));
}

TEST(GpuAttribution, AnEarlierFaultUnderARunThatSucceededIsOnlyAFlag) {
  RunStatus st = failed_run_on({"0000:3b:00"});
  st.exit_code = 0;
  xid79_on(st, "0000:3b:00", kStart - 3'600'000'000LL);
  const Verdict v = builtin().classify_text("step 1 loss 2.3\nstep 2 loss 2.1\nstep 3 loss 1.9\nstep 4 loss 1.7\n", st);
  EXPECT_NE(v.cls, "gpu_hardware") << to_text_for_test(v);
}

TEST(GpuAttribution, AnEarlierFaultOfANeighbourIsNothing) {
  RunStatus st = failed_run_on({"0000:5e:00"});
  xid79_on(st, "0000:3b:00", kStart - 3'600'000'000LL);
  const Verdict v = builtin().classify_text(kCudaFailure, st);
  EXPECT_EQ(v.cls, "cuda_runtime") << to_text_for_test(v);
  EXPECT_FALSE(has_secondary(v, "gpu_hardware")) << secondary_text(v);
}

TEST(BusId, EveryPrintedFormIsOneAddress) {
  namespace ev = gpualert::events;
  EXPECT_EQ(ev::normalize_bus_id("0000:3b:00"), "0000:3b:00");
  EXPECT_EQ(ev::normalize_bus_id("PCI:0000:3b:00"), "0000:3b:00");
  EXPECT_EQ(ev::normalize_bus_id("0000:3B:00.0"), "0000:3b:00");
  EXPECT_EQ(ev::normalize_bus_id("00000000:3B:00.0"), "0000:3b:00");  // nvidia-smi
  EXPECT_EQ(ev::normalize_bus_id(" 0000:86:00.0 "), "0000:86:00");
  EXPECT_FALSE(ev::normalize_bus_id("3b:00"));
  EXPECT_FALSE(ev::normalize_bus_id("0000:3b:00:00"));
  EXPECT_FALSE(ev::normalize_bus_id("all"));
  EXPECT_FALSE(ev::normalize_bus_id(""));
  EXPECT_FALSE(ev::normalize_bus_id("PCI:"));
  EXPECT_FALSE(ev::normalize_bus_id("0000:3b:00; rm -rf /"));
  EXPECT_EQ(ev::normalize_bus_id("NVRM: GPU 0000:86:00.0: GPU has fallen off the bus.", true), "0000:86:00");
  EXPECT_FALSE(ev::normalize_bus_id("at 14:02:11 on 2026-11-27", true));
  const auto e = ev::parse_event_text("NVRM: Xid (PCI:0000:3b:00): 48, pid=77, An uncorrectable double bit error");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bus_id, "0000:3b:00");
}

}  // namespace
}  // namespace gpualert::classify::test
