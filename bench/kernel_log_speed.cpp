// kernel-log-speed: how fast the node's kernel log is read for a run's window.
// Writes a kern.log of N MiB of ordinary kernel chatter (dmesg "[seconds]" stamps) with
// one NVRM Xid record at its end, reads it with read_kernel_events_report() as the
// helper does, and prints MiB/s, wall time and whether the Xid was found.
//   kernel-log-speed [MiB=100]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "gpualert/events/kernel_events.hpp"

int main(int argc, char** argv) {
  namespace ev = gpualert::events;
  const long mib = argc > 1 ? std::atol(argv[1]) : 100;
  const auto path = std::filesystem::temp_directory_path() / "gpualert-kernel-log-speed.log";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    static const char* const kChatter[] = {"EXT4-fs (sda1): mounted filesystem with ordered data mode",
                                           "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
                                           "audit: type=1400 audit(1700000000.123:42): apparmor=\"STATUS\"",
                                           "TCP: request_sock_TCP: Possible SYN flooding on port 22"};
    char line[256];
    std::size_t written = 0;
    for (long i = 0; written < static_cast<std::size_t>(mib) << 20; ++i) {
      const int n = std::snprintf(line, sizeof line, "[%12.6f] %s\n", static_cast<double>(i) * 1e-3, kChatter[i % 4]);
      out.write(line, n);
      written += static_cast<std::size_t>(n);
    }
    // The last record is stamped now (ISO 8601, as `dmesg --time-format iso` writes it).
    const std::time_t t = std::time(nullptr);
    char iso[40];
    std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S+00:00", std::gmtime(&t));
    out << iso << " node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n";
  }
  ev::EventSources src;
  src.journal = false;
  src.kmsg = false;
  src.files.push_back(path);
  const auto now = ev::Clock::now();
  const auto t0 = std::chrono::steady_clock::now();
  const auto rep = ev::read_kernel_events_report(now - std::chrono::hours(24 * 365), now + std::chrono::hours(1), src);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool found = false;
  for (const auto& e : rep.events) found = found || (e.xid && *e.xid == 79);
  std::printf("kern.log %ld MiB: read in %.3f s (%.0f MiB/s of file), Xid 79 at its end %s\n", mib, s,
              static_cast<double>(mib) / s, found ? "found" : "NOT FOUND");
  std::filesystem::remove(path);
  return found ? 0 : 1;
}
