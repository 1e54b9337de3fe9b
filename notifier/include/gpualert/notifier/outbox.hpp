#pragma once
// The durable outbox: every message is stored complete before any send is tried,
// and stays until a relay has accepted it.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"

namespace gpualert::notify {

struct StoredMessage {
  std::string id;                  // unique, sortable by time
  std::filesystem::path eml;       // outbox/pending/<id>.eml (complete message)
  std::filesystem::path meta;      // outbox/pending/<id>.json (envelope, attempts, last error)
  Envelope envelope;
  int attempts = 0;
  std::string last_error;
};

class Outbox {
 public:
  // Creates DIR/pending and DIR/sent (mode 0700) if missing; throws std::system_error.
  explicit Outbox(std::filesystem::path dir);

  // Writes the message (tmp file, fsync, rename, fsync dir). After this returns,
  // the message survives a crash. Throws std::system_error (e.g. disk full).
  StoredMessage store(const Message& msg);

  // Replaces a stored message's content with MSG (same envelope), atomically: a
  // reader sees the old message or the new one, never a mix. Used to add what
  // was left out to be quick (attachments) once the first version is safe.
  void replace(const StoredMessage& m, const Message& msg);

  std::vector<StoredMessage> pending() const;       // oldest first
  void mark_sent(const StoredMessage& m);            // moves both files to sent/
  void record_failure(StoredMessage& m, const std::string& error);  // attempts+1, last_error

  // Deletes leftovers of crashed writers older than MIN_AGE: a .json whose .eml
  // never appeared and temporary files. Younger ones may belong to a store()
  // still running in another process. Returns how many files were removed.
  std::size_t clean_garbage(std::chrono::seconds min_age = std::chrono::hours(1));

  // Keeps BYTES preallocated in DIR/reserve (created when missing and there is
  // room). store() on a full disk frees it and tries once more.
  void keep_reserve(std::uint64_t bytes);

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace gpualert::notify
