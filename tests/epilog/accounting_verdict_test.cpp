// Which GPUs an infra verdict's cited kernel records name: the ones the fleet view
// counts the fault on (a neighbour's record is not among them).
#include <gtest/gtest.h>

#include "accounting_verdict.hpp"

using gpualert::epilog::faulted_gpus;

TEST(AccountingVerdict, TheCitedKernelRecordsNameTheFaultedGpus) {
  gpualert::classify::Verdict v;
  v.evidence.push_back({0, "[kmsg] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.", "events.gpu"});
  v.evidence.push_back({0, "[kmsg] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, again", "events.gpu"});
  v.evidence.push_back({0, "[kmsg] NVRM: GPU 0000:86:00.0: uncorrectable ECC error", "events.preexisting"});
  v.evidence.push_back({0, "[kmsg] NVRM: Xid (PCI:0000:5e:00): 79, a neighbour's", "events.neighbour"});
  v.evidence.push_back({12, "RuntimeError: CUDA error on 0000:af:00 says the log", "py.runtime"});
  EXPECT_EQ(faulted_gpus(v), (std::vector<std::string>{"0000:3b:00", "0000:86:00"}));
}
