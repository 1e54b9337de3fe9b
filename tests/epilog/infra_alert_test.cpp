// The helper's side of the job-start record (job_start_view.hpp) and of the admins'
// cluster-fault messages (report/infra_alert.hpp): which verdicts go to the admins,
// under which GPU, and that of helpers ending together exactly one gathers.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpualert/report/infra_alert.hpp"
#include "job_start_view.hpp"

namespace ga = gpualert;

namespace {

struct TempDir {
  std::string path;
  ga::spool::DirFd fd;
  TempDir() {
    char tmpl[] = "/tmp/ga-infra-XXXXXX";
    path = ::mkdtemp(tmpl);
    fd = ga::spool::DirFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path + "/" + name) << text; }
};

ga::classify::Verdict verdict(const std::string& cls, const std::string& attribution, std::vector<std::string> cited) {
  ga::classify::Verdict v;
  v.cls = cls;
  v.attribution = attribution;
  for (auto& c : cited) v.evidence.push_back({0, std::move(c), "events"});
  v.implies = {"The hardware failed, not the code."};
  return v;
}

}  // namespace

TEST(InfraAlert, OnlyTheClustersFaultsGoToTheAdmins) {
  using ga::report::is_cluster_fault;
  EXPECT_TRUE(is_cluster_fault(verdict("gpu_hardware", "infra", {})));
  EXPECT_TRUE(is_cluster_fault(verdict("node_fail", "infra", {})));
  EXPECT_FALSE(is_cluster_fault(verdict("cuda_oom", "job", {})));
  EXPECT_FALSE(is_cluster_fault(verdict("gpu_hardware", "job", {})));  // an application Xid: the job's
  EXPECT_FALSE(is_cluster_fault(verdict("rendezvous", "infra", {"RendezvousTimeoutError: timed out after 900s"})));
  EXPECT_TRUE(is_cluster_fault(verdict("rendezvous", "infra", {"NCCL WARN NET/IB : Got completion with error 12"})));
}

TEST(InfraAlert, TheFaultedGpuIsTheJobsOwnNamedOneNeverANeighbours) {
  const auto v = verdict("gpu_hardware", "infra",
                         {"[kmsg] NVRM: Xid (PCI:0000:86:00): 79, pid=1, GPU has fallen off the bus.",
                          "[kmsg] NVRM: Xid (PCI:0000:3B:00): 48, pid=2, DBE"});
  EXPECT_EQ(ga::report::faulted_gpu(v, {"0000:3b:00"}), "0000:3b:00");
  EXPECT_EQ(ga::report::faulted_gpu(v, {}), "0000:86:00");             // GPUs unknown: the first named
  EXPECT_EQ(ga::report::faulted_gpu(v, {"0000:5e:00"}), "");           // only neighbours named: the node
  EXPECT_EQ(ga::report::faulted_gpu(verdict("node_fail", "infra", {"slurmstepd: node vm not responding"}), {}), "");
}

TEST(InfraAlert, OfHelpersEndingTogetherExactlyOneGathersAndNothingGoesWithoutAnAddress) {
  TempDir d;
  ga::config::Settings s;
  s.outbox = d.path + "/outbox";
  ga::report::InfraJob j{"gpu041", "101", "alice", "1:0", "2026-11-27T14:02:00Z", {"0000:3b:00"}};
  const auto v = verdict("gpu_hardware", "infra", {"[kmsg] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, fallen off the bus"});
  EXPECT_FALSE(ga::report::hold_for_admins(v, j, s).held);  // neither infra_to nor admin_to
  s.admin_to = {"hpc-admins@example.org"};
  const auto first = ga::report::hold_for_admins(v, j, s);
  EXPECT_TRUE(first.held);
  EXPECT_TRUE(first.gatherer);
  EXPECT_EQ(first.key, "infra:gpu041:0000:3b:00");
  j.job = "102";
  const auto second = ga::report::hold_for_admins(v, j, s);
  EXPECT_TRUE(second.held);
  EXPECT_FALSE(second.gatherer);
  EXPECT_NE(ga::report::send_admins_message(second, s).find("held for the admins' message"), std::string::npos);
  // A job's own fault is never reported.
  EXPECT_FALSE(ga::report::hold_for_admins(verdict("cuda_oom", "job", {}), j, s).held);
  // The gatherer, with no relay, builds the one message and leaves it queued.
  s.infra_gather = std::chrono::milliseconds(0);
  const std::string said = ga::report::send_admins_message(first, s);
  EXPECT_NE(said.find("is queued"), std::string::npos) << said;
  std::size_t pending = 0;
  for (const auto& e : std::filesystem::directory_iterator(s.outbox / "pending")) pending += e.path().extension() == ".eml";
  EXPECT_EQ(pending, 1u);  // the admins' message; both reports moved to sent/ inside it
}

TEST(JobStartView, OnlyThisJobsRecordCountsAndItsFaultsAreBeforeTheStart) {
  TempDir d;
  std::string note;
  EXPECT_FALSE(ga::epilog::read_job_start(d.fd, "gpu041", 77, 1001, note));
  EXPECT_NE(note.find("no job-start record"), std::string::npos) << note;
  ga::spool::JobStartRecord r;
  r.job = 77;
  r.uid = 1001;
  r.node = "gpu041";
  r.started_us = 1'800'000'000'000'000;
  r.gpus_known = true;
  r.gpus = {{2, "0000:86:00", "GPU-x", "H100"}};
  r.kmsg_seq = 4711;
  r.baseline = {{1'799'999'999'000'000, "kmsg", "NVRM: Xid (PCI:0000:86:00): 48, pid=2, DBE"}};
  d.write("job-start.gpu041.json", ga::spool::to_json(r).dump());
  EXPECT_FALSE(ga::epilog::read_job_start(d.fd, "gpu041", 77, 1002, note));  // another user's job 77
  EXPECT_NE(note.find("not this job's"), std::string::npos) << note;
  const auto got = ga::epilog::read_job_start(d.fd, "gpu041", 77, 1001, note);
  ASSERT_TRUE(got);
  ga::classify::RunStatus st;
  EXPECT_TRUE(ga::epilog::apply_job_gpus(st, *got));
  EXPECT_EQ(st.gpus, std::vector<std::string>{"0000:86:00"});
  const auto k = ga::epilog::kernel_start(*got);
  EXPECT_EQ(k.kmsg_after_seq, 4711u);
  ASSERT_EQ(k.before.size(), 1u);
  EXPECT_TRUE(k.before[0].before_start);
  d.write("job-start.gpu041.json", "{\"job\": 77, \"uid\": \"x\"");
  EXPECT_FALSE(ga::epilog::read_job_start(d.fd, "gpu041", 77, 1001, note));
  EXPECT_NE(note.find("malformed"), std::string::npos) << note;
}
