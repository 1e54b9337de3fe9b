#include "baselines.hpp"

#include <utility>
#include <vector>

namespace gpualert::bench {

std::string exit_code_baseline(std::optional<int> code) {
  if (!code) return "unknown";
  const int c = *code;
  if (c == 0) return "healthy";
  if (c == -9 || c == 137) return "oom_killer";  // the folk reading of SIGKILL
  if (c == -11 || c == 139) return "segfault";
  if (c == 126 || c == 127) return "missing_module";
  if (c < 0 || (c > 128 && c < 160)) return "signal_kill";
  return "unknown";  // exit 1 and friends say nothing about the cause
}

namespace {

// Keywords per class: the obvious words a person would grep for.
const std::vector<std::pair<std::string, std::vector<std::string>>>& keywords() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> k = {
      {"assertion", {"AssertionError", "assert"}},
      {"cuda_oom", {"CUDA out of memory", "OutOfMemoryError"}},
      {"cuda_runtime", {"CUDA error", "device-side assert", "illegal memory access", "CUBLAS_STATUS", "CUDNN_STATUS"}},
      {"device_mismatch", {"same device", "Expected all tensors"}},
      {"div_zero", {"ZeroDivisionError", "division by zero"}},
      {"file_not_found", {"FileNotFoundError", "No such file or directory"}},
      {"missing_module", {"ModuleNotFoundError", "ImportError", "No module named"}},
      {"nan_loss", {"nan", "NaN"}},
      {"nccl", {"NCCL", "Watchdog"}},
      {"oom_killer", {"Killed", "oom-kill", "oom_kill", "Out of memory"}},
      {"permission", {"PermissionError", "Permission denied"}},
      {"ram_oom", {"MemoryError", "bad_alloc", "Cannot allocate memory"}},
      {"runtime_error", {"RuntimeError"}},
      {"segfault", {"Segmentation fault", "SIGSEGV", "core dumped"}},
      {"traceback", {"Traceback", "Error"}},
  };
  return k;
}

std::size_t occurrences(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string_view::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

}  // namespace

std::string keyword_baseline(std::string_view log) {
  std::string best = "unknown";
  std::size_t best_n = 0;
  for (const auto& [cls, words] : keywords()) {  // alphabetical: ties go to the first
    std::size_t n = 0;
    for (const auto& w : words) n += occurrences(log, w);
    if (n > best_n) {
      best_n = n;
      best = cls;
    }
  }
  return best;
}

}  // namespace gpualert::bench
