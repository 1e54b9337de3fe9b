#pragma once
// Digests: when many jobs of one array, or many of one user's jobs within a window,
// end badly, the first failures go out at once and the rest are held (folded) and
// sent together as one message: a table of the jobs, the count per class and the
// worst case's evidence. Nothing is dropped: each folded message moves to sent/
// naming the digest that carried it.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify {

struct DigestPolicy {
  bool enabled = true;
  int burst = 5;  // more failures than this to one recipient within WINDOW: the rest fold
  std::chrono::seconds window{600};
  // A digest goes once its burst has been quiet this long, or WINDOW after its first message.
  std::chrono::seconds quiet{60};
  bool array_per_task = false;  // Slurm's ARRAY_TASKS: every task of an array on its own
  // Folding waits for a sender; one is trusted to run if it passed this recently.
  std::chrono::seconds sender_recent{600};
};

// The digest M belongs to, or nullopt when M goes out by itself: it is not a failure,
// no sender runs, it is the first of its array, or its recipient's burst is small.
// Deciding is claiming: the first of an array's tasks to ask takes the array's first
// place (a file in outbox/firsts/), so tasks ending together send exactly one at once.
std::optional<std::string> fold_key(const Outbox& box, const StoredMessage& m, const DigestPolicy& p,
                                    std::chrono::system_clock::time_point now);

// Builds and stores the digests that are due (quiet, or at the end of their window),
// moving what they carry to sent/. Returns the digests stored.
std::vector<StoredMessage> assemble_digests(Outbox& box, const DigestPolicy& p, std::chrono::system_clock::time_point now);

// The digest of MESSAGES (all of one key, oldest first), from FROM to their recipients.
Message digest_message(const std::vector<StoredMessage>& messages, const std::string& key);

}  // namespace gpualert::notify
