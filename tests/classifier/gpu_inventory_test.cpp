// The node's GPUs from the driver's /proc listing (events/gpu_inventory.hpp), on a
// copy of its shape, and which of them a Slurm or CUDA list names.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gpualert/events/gpu_inventory.hpp"

namespace fs = std::filesystem;
namespace ev = gpualert::events;

namespace {

struct Tree {
  fs::path root = fs::temp_directory_path() / ("gpualert-gpus-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Tree() { fs::remove_all(root); fs::create_directories(root); }
  ~Tree() { fs::remove_all(root); }
  void gpu(const std::string& dir, const std::string& information) {
    fs::create_directories(root / dir);
    std::ofstream(root / dir / "information") << information;
  }
  void real(const std::string& bus, int minor, const std::string& uuid, const std::string& model = "NVIDIA A100-SXM4-80GB") {
    gpu(bus, "Model: \t\t " + model + "\nIRQ:   \t\t 146\nGPU UUID: \t " + uuid + "\nVideo BIOS: \t 92.00.36.00.01\n"
             "Bus Type: \t PCIe\nDMA Size: \t 47 bits\nBus Location: \t " + bus + "\nDevice Minor: \t " +
             std::to_string(minor) + "\nGPU Excluded:\t No\n");
  }
};

TEST(GpuInventory, TheDriversListingInPciOrder) {
  Tree t;
  t.real("0000:86:00.0", 2, "GPU-86868686-1111");
  t.real("0000:3b:00.0", 0, "GPU-3b3b3b3b-2222");
  t.real("0000:5e:00.0", 1, "GPU-5e5e5e5e-3333");
  const auto inv = ev::read_gpu_inventory(t.root);
  EXPECT_TRUE(inv.driver);
  EXPECT_TRUE(inv.notes.empty());
  ASSERT_EQ(inv.gpus.size(), 3u);
  EXPECT_EQ(inv.gpus[0].bus_id, "0000:3b:00");
  EXPECT_EQ(inv.gpus[0].minor, 0);
  EXPECT_EQ(inv.gpus[0].uuid, "GPU-3b3b3b3b-2222");
  EXPECT_EQ(inv.gpus[2].bus_id, "0000:86:00");
  // Slurm's gres indices are device minors; CUDA's numbers positions; UUID prefixes name one GPU.
  auto s = ev::select_gpus(inv, "2,0", ev::IndexMeaning::device_minor);
  ASSERT_TRUE(s.known);
  EXPECT_EQ(s.bus_ids, (std::vector<std::string>{"0000:86:00", "0000:3b:00"}));
  s = ev::select_gpus(inv, "1", ev::IndexMeaning::cuda_default);  // one model: fastest first is PCI order
  ASSERT_TRUE(s.known);
  EXPECT_EQ(s.bus_ids, std::vector<std::string>{"0000:5e:00"});
  s = ev::select_gpus(inv, "GPU-5e5e", ev::IndexMeaning::cuda_default);
  ASSERT_TRUE(s.known);
  EXPECT_EQ(s.bus_ids, std::vector<std::string>{"0000:5e:00"});
  s = ev::select_gpus(inv, "", ev::IndexMeaning::device_minor);  // no GPU given to the job
  EXPECT_TRUE(s.known);
  EXPECT_TRUE(s.bus_ids.empty());
}

TEST(GpuInventory, WhatCannotBeMappedIsSaidAndCountsEveryGpu) {
  Tree t;
  t.real("0000:3b:00.0", 0, "GPU-3b3b3b3b-2222", "NVIDIA A100-SXM4-80GB");
  t.real("0000:5e:00.0", 1, "GPU-5e5e5e5e-3333", "NVIDIA L40S");
  const auto inv = ev::read_gpu_inventory(t.root);
  for (const char* list : {"7", "GPU-ffff", "MIG-1234", "NoDevFiles", "0;reboot", "GPU-"}) {
    const auto s = ev::select_gpus(inv, list, ev::IndexMeaning::device_minor);
    EXPECT_FALSE(s.known) << list;
    EXPECT_FALSE(s.note.empty()) << list;
  }
  // Two models: CUDA's default numbering is not PCI order, unless the job asked for it.
  auto s = ev::select_gpus(inv, "1", ev::IndexMeaning::cuda_default);
  EXPECT_FALSE(s.known);
  EXPECT_NE(s.note.find("CUDA_DEVICE_ORDER=PCI_BUS_ID"), std::string::npos) << s.note;
  s = ev::select_gpus(inv, "1", ev::IndexMeaning::pci_order);
  ASSERT_TRUE(s.known);
  EXPECT_EQ(s.bus_ids, std::vector<std::string>{"0000:5e:00"});
}

TEST(GpuInventory, NoDriverAndMalformedFilesAreNotesNeverFailures) {
  const auto none = ev::read_gpu_inventory("/nonexistent/driver/nvidia/gpus");
  EXPECT_FALSE(none.driver);
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_NE(none.notes[0].find("no NVIDIA driver"), std::string::npos);
  EXPECT_FALSE(ev::select_gpus(none, "0", ev::IndexMeaning::device_minor).known);

  Tree t;
  t.real("0000:3b:00.0", 0, "GPU-3b3b3b3b-2222");
  t.gpu("0000:5e:00.0", "Model: x\nDevice Minor: 1\n");                          // no Bus Location
  t.gpu("0000:86:00.0", "Bus Location: 0000:86:00.0\nDevice Minor: lots\n");     // a minor that is no number
  t.gpu("0000:af:00.0", std::string(40000, '\0'));                                // binary garbage
  t.gpu("0000:d8:00.0", "Bus Location: ../../etc/passwd\nDevice Minor: 3\n");    // no address
  fs::create_directories(t.root / "0000:e1:00.0");                                 // no information file
  const auto inv = ev::read_gpu_inventory(t.root);
  ASSERT_EQ(inv.gpus.size(), 1u) << inv.gpus.front().bus_id << " minor " << inv.gpus.front().minor << " model "
                                 << inv.gpus.front().model;
  EXPECT_EQ(inv.gpus[0].bus_id, "0000:3b:00");
  EXPECT_EQ(inv.notes.size(), 5u);
  for (const auto& n : inv.notes) EXPECT_NE(n.find("left out"), std::string::npos) << n;
  // The GPU that was read is still mapped; one that was left out is not guessed.
  EXPECT_TRUE(ev::select_gpus(inv, "0", ev::IndexMeaning::device_minor).known);
  EXPECT_FALSE(ev::select_gpus(inv, "1", ev::IndexMeaning::device_minor).known);
}

}  // namespace
