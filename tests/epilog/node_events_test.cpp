// Kernel events of the other nodes of a job, handed over through the spool.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "gpualert/report/run_evidence.hpp"
#include "node_events.hpp"

using namespace gpualert::epilog;

namespace {

struct TempDir {
  std::string path;
  gpualert::spool::DirFd fd;
  TempDir() {
    char tmpl[] = "/tmp/ga-nodeev-XXXXXX";
    path = ::mkdtemp(tmpl);
    fd = gpualert::spool::DirFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path + "/" + name) << text; }
};

gpualert::spool::StepRecord record(const std::string& node, const std::string& started, const std::string& ended) {
  gpualert::spool::StepRecord r;
  r.node = node;
  r.started = started;
  r.ended = ended;
  return r;
}

}  // namespace

TEST(NodeEvents, TheWindowIsThisNodesOwnSteps) {
  const auto [from, to] = node_window({record("n1", "2026-11-22T08:00:00Z", "2026-11-22T09:00:00Z"),
                                       record("n2", "2026-11-22T08:00:05Z", "2026-11-22T08:30:00Z"),
                                       record("n2", "2026-11-22T08:10:00Z", "2026-11-22T08:50:00Z")},
                                      "n2");
  EXPECT_EQ(Clock::to_time_t(from), 1795334405);  // 2026-11-22T08:00:05Z
  EXPECT_EQ(Clock::to_time_t(to), 1795337400);    // 2026-11-22T08:50:00Z
  const auto none = node_window({record("n1", "2026-11-22T08:00:00Z", "")}, "n3");
  EXPECT_EQ(none.first.time_since_epoch().count(), 0);
}

TEST(NodeEvents, OtherNodesFilesAreMergedAndTheMissingNamed) {
  TempDir d;
  NodeEvents e;
  e.node = "n2";
  e.read_any = true;
  e.events.push_back({1'795'334'500'000'000, "journal", "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus."});
  d.write(node_events_name("n2", 0), to_json_text(e));
  NodeEvents forged = e;
  forged.node = "n1";  // the content claims another node: the file name decides
  d.write(node_events_name("n3", 0), to_json_text(forged));
  d.write(node_events_name("n4", 0), "{not json");
  std::vector<std::string> missing, problems;
  const auto got = gather_node_events(d.fd, {"n1", "n2", "n3", "n4", "n5"}, "n1", 0, std::chrono::milliseconds(300),
                                      missing, problems);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].node, "n2");
  ASSERT_EQ(got[0].events.size(), 1u);
  EXPECT_NE(got[0].events[0].text.find("Xid"), std::string::npos);
  EXPECT_EQ(got[1].node, "n3");
  EXPECT_EQ(missing, std::vector<std::string>{"n5"});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("malformed"), std::string::npos);
}

TEST(NodeEvents, AFileForAnotherRunIsNotRead) {
  TempDir d;
  NodeEvents e;
  e.node = "n2";
  d.write(node_events_name("n2", 0), to_json_text(e));
  std::vector<std::string> missing, problems;
  const auto got = gather_node_events(d.fd, {"n1", "n2"}, "n1", 1, std::chrono::milliseconds(0), missing, problems);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(missing, std::vector<std::string>{"n2"});
}

TEST(NodeEvents, NodeNamesCannotLeaveTheDirectory) {
  const std::string n = node_events_name("../../etc/passwd", 0);
  EXPECT_EQ(n.find('/'), std::string::npos) << n;
}

TEST(NodeEvents, PublishWritesWhatThisNodeCouldRead) {
  TempDir d;
  std::string note;
  const auto now = Clock::now();
  ASSERT_TRUE(publish_node_events(d.fd, ::getgid(), "self", 2, now - std::chrono::minutes(1), now, nullptr, note)) << note;
  std::ifstream in(d.path + "/" + node_events_name("self", 2));
  std::stringstream ss;
  ss << in.rdbuf();
  const NodeEvents back = node_events_from_json_text(ss.str());
  EXPECT_EQ(back.node, "self");
  EXPECT_FALSE(note.empty());
}

TEST(NodeEvents, ThisNodesRecordSaysWhoseGpuEachFaultNamesAndWhatCameBeforeTheJob) {
  // GPU addresses repeat from node to node: only the node that ran a part of the job can
  // tell whether a record names the job's GPU there. Its job-start record says.
  TempDir d;
  gpualert::spool::JobStartRecord r;
  r.job = 5;
  r.node = "n2";
  r.started_us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count();
  r.gpus_known = true;
  r.gpus = {{0, "0000:3b:00", "", ""}};
  r.baseline = {{r.started_us - 60'000'000, "kmsg", "NVRM: Xid (PCI:0000:3b:00): 48, pid=2, DBE"},
                {r.started_us - 50'000'000, "kmsg", "NVRM: Xid (PCI:0000:86:00): 79, pid=3, GPU has fallen off the bus."}};
  std::string note;
  ASSERT_TRUE(publish_node_events(d.fd, ::getgid(), "n2", 0, Clock::now(), Clock::now(), &r, note)) << note;
  std::ifstream in(d.path + "/" + node_events_name("n2", 0));
  std::stringstream ss;
  ss << in.rdbuf();
  const NodeEvents back = node_events_from_json_text(ss.str());
  int seen = 0;
  for (const auto& e : back.events) {
    if (e.text.find("0000:3b:00") != std::string::npos) {
      EXPECT_TRUE(e.before_start);
      EXPECT_EQ(e.on_job_gpu, std::optional<bool>(true));
      ++seen;
    }
    if (e.text.find("0000:86:00") != std::string::npos) {
      EXPECT_TRUE(e.before_start);
      EXPECT_EQ(e.on_job_gpu, std::optional<bool>(false));
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2) << ss.str();
}

// Syslog files are not the kernel's word: any user can get a "kernel: NVRM: Xid" line
// into /var/log/kern.log or /var/log/messages, so neither is read unasked.
TEST(NodeEvents, SyslogFilesAreNotReadUnasked) {
  const std::vector<std::string> files = {"/var/log/kern.log", "/var/log/messages"};
  for (const auto& f : files)
    if (std::filesystem::exists(f)) GTEST_SKIP() << f << " exists and is left alone";
  if (::access("/var/log", W_OK) != 0) GTEST_SKIP() << "/var/log is not writable";
  struct Remove {
    const std::vector<std::string>& f;
    ~Remove() {
      for (const auto& p : f) std::filesystem::remove(p);
    }
  } remove{files};
  const auto now = Clock::now();
  const std::time_t t = Clock::to_time_t(now);
  char iso[40];
  std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S+00:00", std::gmtime(&t));
  const std::string marker = "pid=" + std::to_string(::getpid()) + "0,";
  for (const auto& f : files)
    std::ofstream(f) << iso << " n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, " << marker << " GPU has fallen off the bus.\n";
  const auto k = gpualert::report::read_node_kernel_log(now - std::chrono::minutes(1), now + std::chrono::minutes(1));
  for (const auto& e : k.events) EXPECT_EQ(e.text.find(marker), std::string::npos) << e.source << ": " << e.text;
}
