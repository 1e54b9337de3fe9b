#pragma once
// The node's NVIDIA GPUs as the driver lists them in /proc, without NVML: each GPU's
// PCI address, device minor number (/dev/nvidiaN) and UUID, from
// /proc/driver/nvidia/gpus/<address>/information. And which of them a job holds,
// from the lists Slurm and CUDA give a job (SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES).
// Nothing here fails: a node without the driver, a malformed file or a list that
// cannot be mapped gives a note, and the caller counts every GPU as the job's.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::events {

struct Gpu {
  std::string bus_id;  // normalize_bus_id's form, "0000:3b:00"
  int minor = -1;      // "Device Minor": /dev/nvidia<minor>
  std::string uuid;    // "GPU UUID", e.g. "GPU-6f1b0c2e-..."
  std::string model;   // "Model"
};

struct GpuInventory {
  bool driver = false;             // the directory exists: an NVIDIA driver is loaded
  std::vector<Gpu> gpus;           // in PCI-address order
  std::vector<std::string> notes;  // what could not be read, one sentence each
};

inline constexpr const char* kNvidiaGpusDir = "/proc/driver/nvidia/gpus";
// DIR: kNvidiaGpusDir, or a copy of its shape (tests).
GpuInventory read_gpu_inventory(const std::filesystem::path& dir = kNvidiaGpusDir);

// What a list of GPUs names. "GPU-<uuid>" (or a unique prefix of one) names a GPU by
// UUID; what a number means depends on who gave the list:
enum class IndexMeaning {
  device_minor,  // Slurm's gres index: the GPU whose gres.conf line is File=/dev/nvidia<N>
                 // (as AutoDetect and the usual hand-written lines make it)
  pci_order,     // CUDA_VISIBLE_DEVICES under CUDA_DEVICE_ORDER=PCI_BUS_ID: a position in PCI order
  cuda_default,  // CUDA_VISIBLE_DEVICES otherwise: fastest first, which is PCI order only on a
                 // node of one model (elsewhere the list is not mapped)
};
struct GpuSelection {
  bool known = false;                // false: count every GPU of the node (NOTE says why)
  std::vector<std::string> bus_ids;  // when known; empty: the job holds no GPU
  std::string note;
};
GpuSelection select_gpus(const GpuInventory& inv, std::string_view list, IndexMeaning meaning);

}  // namespace gpualert::events
