// How long the plugin's job prolog takes (spank/src/job_start.hpp), against its budget
// of 100 ms: on an 8-GPU /proc tree and ring buffers of growing size (the kernel's
// default is 128-256 KiB; big nodes set log_buf_len up to 16 MiB), the node's own
// /dev/kmsg when it can be read, and the journal when there is one. Prints figures
// and ratios; asserts nothing (see bench/README in RESULTS.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpualert/events/kernel_events.hpp"
#include "gpualert/spool/job_start_capture.hpp"

namespace fs = std::filesystem;

namespace {

// A ring-buffer text of about BYTES: ordinary kernel chatter with an Xid now and then.
void write_ring(const fs::path& p, std::size_t bytes) {
  std::ofstream out(p);
  std::size_t n = 0, seq = 1;
  const auto zero = gpualert::events::kmsg_zero();
  const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now() - zero).count();
  while (n < bytes) {
    std::string line = "6," + std::to_string(seq) + "," + std::to_string(std::max<long long>(0, now_us - 1'000'000'000 + static_cast<long long>(seq) * 1000)) + ",-;";
    line += seq % 500 == 0 ? "NVRM: Xid (PCI:0000:3b:00): 48, pid=9, An uncorrectable double bit error (DBE) has been detected."
                           : "eth0: renamed from veth1a2b3c4 port 3(veth9f8e7d) entered forwarding state";
    line += "\n SUBSYSTEM=net\n";
    out << line;
    n += line.size();
    ++seq;
  }
}

double median_ms(const gpualert::spool::JobStartInputs& in, int runs) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(gpualert::spool::take_job_start(in).took_ms);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  const fs::path dir = fs::temp_directory_path() / ("gpualert-prolog-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir / "gpus");
  const char* buses[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3b:00.0", "0000:5d:00.0",
                         "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"};
  for (int i = 0; i < 8; ++i) {
    fs::create_directories(dir / "gpus" / buses[i]);
    std::ofstream(dir / "gpus" / buses[i] / "information")
        << "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-" << i << "0000000-bench\nBus Location: \t " << buses[i]
        << "\nDevice Minor: \t " << i << "\n";
  }
  gpualert::spool::JobStartInputs in;
  in.job = 1;
  in.node = "bench";
  in.gpus_dir = dir / "gpus";
  in.slurm_job_gpus = "0,2,4,6";
  in.journal = false;
  const double budget = 100.0;
  std::printf("%-44s %10s %12s\n", "job prolog (median of runs)", "ms", "of 100 ms");
  for (const std::size_t kib : {256u, 1024u, 4096u, 16384u}) {
    in.kmsg_path = dir / ("kmsg-" + std::to_string(kib));
    write_ring(in.kmsg_path, kib * 1024);
    const double ms = median_ms(in, runs);
    std::printf("%-44s %10.2f %11.3fx\n", ("8 GPUs, ring buffer " + std::to_string(kib) + " KiB").c_str(), ms, ms / budget);
  }
  std::string err;
  if (gpualert::events::read_kmsg_text("/dev/kmsg", err)) {
    in.kmsg_path = "/dev/kmsg";
    const double ms = median_ms(in, runs);
    std::printf("%-44s %10.2f %11.3fx\n", "8 GPUs, this node's /dev/kmsg", ms, ms / budget);
  }
  if (gpualert::events::journal_supported()) {
    in.journal = true;
    const auto r = gpualert::spool::take_job_start(in);
    std::printf("%-44s %10.2f %11.3fx  (%s)\n", "... and the journal's cursor", median_ms(in, runs), median_ms(in, runs) / budget,
                r.journal_cursor.empty() ? "no journal here" : "cursor taken");
  }
  fs::remove_all(dir);
  return 0;
}
