// classify-speed: generates a large mixed log (training output + hostile lines) and
// reports how fast the classifier reads it. Reported, not asserted.
// Usage: classify-speed [MIB] [--keep PATH]   (--keep: write the log to PATH and keep it)
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include "gpualert/classifier/classifier.hpp"

int main(int argc, char** argv) {
  const double mb = argc > 1 ? std::atof(argv[1]) : 200.0;
  const auto target = static_cast<std::uint64_t>(mb * 1024 * 1024);
  const bool keep = argc > 3 && std::string(argv[2]) == "--keep";
  const std::filesystem::path path =
      keep ? std::filesystem::path(argv[3])
           : std::filesystem::temp_directory_path() / ("gpualert-speed-" + std::to_string(::getpid()) + ".log");
  std::mt19937 rng(42);
  {
    std::ofstream out(path, std::ios::binary);
    std::uint64_t written = 0;
    std::uint64_t step = 0;
    const std::string hostile(20000, 'a');
    while (written < target) {
      std::string line;
      // Mostly ordinary training output; about one line in 300 is hostile (huge, binary, nested).
      static constexpr int kOrdinary[] = {0, 1, 4, 5, 6, 7, 9, 10, 11};
      const auto r = static_cast<int>(rng() % 1000);
      const int kind = r < 1 ? 2 : r < 2 ? 8 : r < 3 ? 3 : kOrdinary[r % 9];
      switch (kind) {
        case 0: line = "{'loss': " + std::to_string(3.0 - double(step % 1000) / 500.0) + ", 'grad_norm': 1.2, 'learning_rate': 1e-4, 'epoch': 0.5}"; break;
        case 1: line = "gpu041:22011:22055 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7"; break;
        case 2: line = hostile + "!"; break;
        case 3: {
          static constexpr char kBinary[] = "\x01\x02\xff\xfe binary \0 garbage \x7f";
          line = std::string(kBinary, sizeof kBinary - 1);
          break;
        }
        case 4: line = " 45%|████▌     | 4500/10000 [12:34<15:21,  5.97it/s]"; break;
        case 5: line = "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1518, in _call_impl"; break;
        case 6: line = "[rank3]: step " + std::to_string(step) + " | loss " + std::to_string(2.5 - double(step % 100) / 100.0) + " | lr 3e-4"; break;
        case 7: line = "UserWarning: TypedStorage is deprecated. It will be removed in the future."; break;
        case 8: line = std::string(3000, '(') + std::string(3000, ')'); break;
        case 9: line = "2024-05-01 12:00:00,123 INFO trainer.py:1234 Saving model checkpoint to /ckpt/step-" + std::to_string(step); break;
        case 10: line = "Epoch 3: 100%|██████████| 500/500 [01:40<00:00, 4.98it/s, v_num=1, train_loss=0.231]"; break;
        default: line = "RuntimeErrorish text NCCL ERROR CUDA errors nan Segmentation word Killed-ish " + std::to_string(step); break;
      }
      line += "\n";
      out << line;
      written += line.size();
      ++step;
    }
  }
  const auto size = std::filesystem::file_size(path);
  const auto c = gpualert::classify::Classifier::with_builtin_rules();
  gpualert::classify::RunStatus st;
  st.exit_code = 0;
  // CPU time as well as wall time: on a shared, loaded machine the CPU figure is the stable one.
  const std::clock_t c0 = std::clock();
  const auto t0 = std::chrono::steady_clock::now();
  const auto v = c.classify_file(path, st);
  const auto t1 = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(t1 - t0).count();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  if (!keep) std::filesystem::remove(path);
  const double mib = double(size) / (1024.0 * 1024.0);
  std::printf("classified %.1f MiB, %llu lines: wall %.2f s (%.1f MiB/s, %.0f lines/s), cpu %.2f s (%.1f MiB/s, %.0f lines/s); "
              "verdict %s, %zu rules\n",
              mib, static_cast<unsigned long long>(v.lines_read), s, mib / s, double(v.lines_read) / s, cpu, mib / cpu,
              double(v.lines_read) / cpu, v.cls.c_str(), c.rule_count());
  return 0;
}
