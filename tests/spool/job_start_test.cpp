// The job-start record the plugin's job_prolog takes (gpualert/spool/job_start_capture.hpp), on a
// copy of the driver's /proc shape and a saved ring buffer: the job's GPUs by their
// addresses, the buffer's last sequence number, the GPU faults before the start, and a
// clear note for each thing that could not be read. Then the record through JSON.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gpualert/events/kernel_events.hpp"
#include "gpualert/spool/job_start_capture.hpp"

namespace fs = std::filesystem;
namespace ga = gpualert;

namespace {

struct Node {
  fs::path root = fs::temp_directory_path() / ("gpualert-start-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Node() { fs::remove_all(root); fs::create_directories(root / "gpus"); }
  ~Node() { fs::remove_all(root); }
  void gpu(const std::string& bus, int minor) {
    fs::create_directories(root / "gpus" / bus);
    std::ofstream(root / "gpus" / bus / "information")
        << "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-" << minor << "aaaaaaa-bbbb\nBus Location: \t " << bus
        << "\nDevice Minor: \t " << minor << "\n";
  }
  // A ring-buffer text whose stamps are SECONDS_AGO before now (usec since boot).
  void kmsg(const std::vector<std::pair<long, std::string>>& records) {
    std::ofstream out(root / "kmsg");
    const auto zero = ga::events::kmsg_zero();
    std::uint64_t seq = 100;
    for (const auto& [ago, text] : records) {
      const auto t = std::chrono::system_clock::now() - std::chrono::seconds(ago) - zero;
      out << "3," << seq++ << "," << std::chrono::duration_cast<std::chrono::microseconds>(t).count() << ",-;" << text
          << "\n";
    }
  }
  ga::spool::JobStartInputs inputs() const {
    ga::spool::JobStartInputs in;
    in.job = 77;
    in.uid = 1001;
    in.node = "gpu041";
    in.gpus_dir = root / "gpus";
    in.kmsg_path = root / "kmsg";
    in.journal = false;
    return in;
  }
};

TEST(JobStart, TheJobsGpusByAddressAndTheKernelPositionBeforeIt) {
  Node n;
  for (int i = 0; i < 4; ++i) n.gpu("0000:" + std::string(i == 0 ? "3b" : i == 1 ? "5e" : i == 2 ? "86" : "af") + ":00.0", i);
  n.kmsg({{7 * 3600, "NVRM: Xid (PCI:0000:86:00): 79, pid=1, GPU has fallen off the bus."},  // too old
          {3600, "NVRM: Xid (PCI:0000:86:00): 48, pid=2, An uncorrectable double bit error (DBE) has been detected."},
          {1800, "usb 1-1: new device"},
          {60, "NVRM: Xid (PCI:0000:3b:00): 79, pid=3, GPU has fallen off the bus."}});
  auto in = n.inputs();
  in.slurm_job_gpus = "0,2";
  const auto r = ga::spool::take_job_start(in);
  EXPECT_TRUE(r.gpus_known);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].bus_id, "0000:3b:00");
  EXPECT_EQ(r.gpus[0].minor, 0);
  EXPECT_EQ(r.gpus[1].bus_id, "0000:86:00");
  EXPECT_EQ(r.gpus[1].minor, 2);
  EXPECT_EQ(r.gpu_list_from, "SLURM_JOB_GPUS");
  ASSERT_TRUE(r.kmsg_seq.has_value());
  EXPECT_EQ(*r.kmsg_seq, 103u);  // the last record's, whatever it says
  // The node's GPU faults of the last six hours, every GPU's: the epilog decides whose.
  ASSERT_EQ(r.baseline.size(), 2u);
  EXPECT_NE(r.baseline[0].text.find("Xid (PCI:0000:86:00): 48"), std::string::npos);
  EXPECT_NE(r.baseline[1].text.find("Xid (PCI:0000:3b:00): 79"), std::string::npos);
  EXPECT_GT(r.baseline[1].time_us, r.baseline[0].time_us);
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
}

TEST(JobStart, ANodeWithoutTheDriverAJobWithoutGpusAndAnUnreadableBufferEachLeaveANote) {
  Node n;
  auto in = n.inputs();
  in.gpus_dir = n.root / "no-such-dir";
  in.kmsg_path = n.root / "no-kmsg";
  in.slurm_job_gpus = "0";
  auto r = ga::spool::take_job_start(in);
  EXPECT_FALSE(r.gpus_known);
  EXPECT_FALSE(r.kmsg_seq.has_value());
  ASSERT_GE(r.notes.size(), 2u);
  std::string all;
  for (const auto& s : r.notes) all += s + "\n";
  EXPECT_NE(all.find("no NVIDIA driver"), std::string::npos) << all;
  EXPECT_NE(all.find("could not be read"), std::string::npos) << all;

  n.gpu("0000:3b:00.0", 0);
  in = n.inputs();  // a driver, but Slurm named no GPU
  r = ga::spool::take_job_start(in);
  EXPECT_FALSE(r.gpus_known);
  all.clear();
  for (const auto& s : r.notes) all += s + "\n";
  EXPECT_NE(all.find("no GPU list"), std::string::npos) << all;
}

TEST(JobStart, AMalformedProcFileOrAnUnknownIndexIsANoteNotAGuess) {
  Node n;
  n.gpu("0000:3b:00.0", 0);
  fs::create_directories(n.root / "gpus" / "0000:5e:00.0");
  std::ofstream(n.root / "gpus" / "0000:5e:00.0" / "information") << "\x01\x02 garbage \xff\n";
  auto in = n.inputs();
  in.slurm_job_gpus = "1";  // the malformed one's minor is not known
  const auto r = ga::spool::take_job_start(in);
  EXPECT_FALSE(r.gpus_known);
  std::string all;
  for (const auto& s : r.notes) all += s + "\n";
  EXPECT_NE(all.find("SLURM_JOB_GPUS=1 could not be mapped"), std::string::npos) << all;
}

TEST(JobStart, TheRecordSurvivesJsonAndABadOneIsRefused) {
  Node n;
  n.gpu("0000:3b:00.0", 0);
  n.kmsg({{10, "NVRM: Xid (PCI:0000:3b:00): 94, pid=9, Contained ECC error."}});
  auto in = n.inputs();
  in.cuda_visible_devices = "0";
  const auto r = ga::spool::take_job_start(in);
  const auto back = ga::spool::job_start_from_json(ga::spool::to_json(r));
  EXPECT_EQ(back.job, 77u);
  EXPECT_EQ(back.uid, 1001u);
  EXPECT_EQ(back.node, "gpu041");
  EXPECT_EQ(back.gpu_list_from, "CUDA_VISIBLE_DEVICES");
  ASSERT_EQ(back.gpus.size(), 1u);
  EXPECT_EQ(back.gpus[0].bus_id, "0000:3b:00");
  EXPECT_EQ(back.kmsg_seq, r.kmsg_seq);
  ASSERT_EQ(back.baseline.size(), 1u);
  EXPECT_EQ(back.baseline[0].text, r.baseline[0].text);
  EXPECT_EQ(ga::spool::job_start_file_name("gpu041"), "job-start.gpu041.json");
  EXPECT_THROW(ga::spool::job_start_from_json(nlohmann::json::parse(R"({"job":"x"})")), nlohmann::json::exception);
}

}  // namespace
