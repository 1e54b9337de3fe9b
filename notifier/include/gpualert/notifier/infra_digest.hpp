#pragma once
// Cluster faults to the people who can fix them. Every job that a fault of the
// cluster ended (a GPU fallen off the bus, a node failure, throttling) leaves one
// report in the outbox, held under the key "infra:<node>:<gpu>". The admins get one
// message per key: GATHER after its first report (so the jobs one fault ended
// together arrive as one list), then at most one per WINDOW. The message lists the
// jobs, their users and the kernel lines their verdicts cited, and the `scontrol`
// line that would drain the node: gpualert itself never drains anything.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify {

struct InfraPolicy {
  std::chrono::seconds gather{120};
  std::chrono::seconds window{6 * 3600};
};

inline constexpr const char* kInfraKeyPrefix = "infra:";
// "infra:<node>:<gpu>" ("-" for a fault that names no GPU); control bytes dropped.
std::string infra_key(const std::string& node, const std::string& gpu);
bool is_infra_key(const std::string& key);

// When the held reports of KEY may go out (nullopt: none held). Not before GATHER after
// the oldest, nor before WINDOW after the last message of KEY.
std::optional<std::chrono::system_clock::time_point> infra_due(const Outbox& box, const std::string& key,
                                                               const InfraPolicy& p,
                                                               std::chrono::system_clock::time_point now);

// The admins' message for REPORTS (all of KEY, oldest first).
Message infra_message(const std::vector<StoredMessage>& reports, const std::string& key);

// Builds and stores the admins' messages that are due (ONLY_KEY: that key alone),
// moving the reports they carry to sent/. One assembler at a time per outbox.
std::vector<StoredMessage> assemble_infra(Outbox& box, const InfraPolicy& p, std::chrono::system_clock::time_point now,
                                          const std::string& only_key = "");

}  // namespace gpualert::notify
