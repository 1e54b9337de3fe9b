// events_probe: prints the kernel events read_kernel_events() finds in a window.
// Used by journal_events_test.sh (a real journald) and handy on a node:
//   events_probe <from-unix-seconds> <to-unix-seconds> [--no-journal] [--no-kmsg] [--kmsg PATH] [--file PATH]...
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "gpualert/events/kernel_events.hpp"

int main(int argc, char** argv) {
  namespace ev = gpualert::events;
  if (argc < 3) {
    std::cerr << "usage: events_probe FROM TO [--no-journal] [--no-kmsg] [--kmsg PATH] [--file PATH]...\n";
    return 2;
  }
  const auto from = ev::Clock::time_point(std::chrono::seconds(std::atoll(argv[1])));
  const auto to = ev::Clock::time_point(std::chrono::seconds(std::atoll(argv[2])));
  ev::EventSources src;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-journal")) src.journal = false;
    else if (!std::strcmp(argv[i], "--no-kmsg")) src.kmsg = false;
    else if (!std::strcmp(argv[i], "--kmsg") && i + 1 < argc) src.kmsg_path = argv[++i];
    else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) src.files.emplace_back(argv[++i]);
  }
  const auto rep = ev::read_kernel_events_report(from, to, src);
  for (const auto& s : rep.read) std::cout << "read " << s << "\n";
  for (const auto& e : rep.errors) std::cout << "error " << e << "\n";
  for (const auto& e : rep.events) {
    std::cout << "event " << std::chrono::duration_cast<std::chrono::seconds>(e.time.time_since_epoch()).count() << " "
              << e.source << " xid=" << (e.xid ? std::to_string(*e.xid) : "-")
              << (e.xid ? std::string(" blame=") + ev::to_string(ev::xid_info(*e.xid).blame) : std::string()) << " | "
              << e.text << "\n";
  }
  return 0;
}
