#pragma once
// The durable outbox: every message is stored complete before any send is tried,
// and stays until a relay has accepted it.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"

namespace gpualert::notify {

struct StoredMessage {
  std::string id;                  // unique, sortable by time
  std::filesystem::path eml;       // outbox/pending/<id>.eml (complete message; a channel's JSON payload)
  std::filesystem::path meta;      // outbox/pending/<id>.json (envelope, attempts, last error)
  Envelope envelope;
  int attempts = 0;
  std::string last_error;
  long last_code = 0;  // the relay's last reply code, when known
  // When it was stored, and not to be tried before (epoch: at once).
  std::chrono::system_clock::time_point created{}, next_attempt{};
  // From the message's X-Gpualert-* headers, for the delivery log and rate limits.
  std::string job, user, cls;
  bool notice = false;  // a notice to the admins: its own failure never makes another
  std::map<std::string, std::string> record;  // Message::record, as stored
  // Held for a digest (not sent by itself): the key of the burst or array it belongs to.
  std::string digest_key;
  std::string channel;  // a post to this channel ("slack:team-ml"), not a mail
};

class Outbox {
 public:
  // Creates DIR/pending and DIR/sent (mode 0700) if missing; throws std::system_error.
  explicit Outbox(std::filesystem::path dir);

  // Writes the message (tmp file, fsync, rename, fsync dir). After this returns,
  // the message survives a crash. Throws std::system_error (e.g. disk full).
  // HELD_FOR: stored already held for that digest (never sent by itself, not even
  // by a pass that runs between the store and a fold).
  StoredMessage store(const Message& msg, const std::string& held_for = "");

  // Replaces a stored message's content with MSG (same envelope), atomically: a
  // reader sees the old message or the new one, never a mix. Used to add what
  // was left out to be quick (attachments) once the first version is safe.
  void replace(const StoredMessage& m, const Message& msg);

  std::vector<StoredMessage> pending() const;       // oldest first
  std::vector<StoredMessage> failed() const;        // given up on: failed/, oldest first
  void mark_sent(const StoredMessage& m);            // moves both files to sent/
  void record_failure(StoredMessage& m, const std::string& error);  // attempts+1, last_error
  // A failed attempt: attempts+1, the reason and reply code, and when to try again.
  void defer(StoredMessage& m, const std::string& error, long code, std::chrono::system_clock::time_point next);
  // Gives the message up: both files move to failed/, the reason recorded with them.
  void mark_failed(StoredMessage& m, const std::string& reason, long code);

  // Holds M for the digest KEY: it stays pending but is no longer sent by itself.
  void fold(StoredMessage& m, const std::string& key);
  // M went out inside digest DIGEST_ID: it moves to sent/, the digest named in its record.
  void mark_folded_into(const StoredMessage& m, const std::string& digest_id);
  // The sender marks each pass; folding waits for a digest only where a sender is
  // known to run (a mark younger than MAX_AGE), so no message waits for nobody.
  void mark_sender_pass();
  bool sender_seen(std::chrono::seconds max_age) const;
  // Sent and pending messages stored since SINCE (for burst counting).
  std::vector<StoredMessage> recent(std::chrono::system_clock::time_point since) const;

  // Puts message ID back in the queue, due at once: from failed/ (the cause was
  // fixed) or still pending (try now, not at its backoff time). False: no such message.
  bool retry(const std::string& id);
  // Deletes sent/ and failed/ messages older than AGE. Returns how many.
  std::size_t purge(std::chrono::seconds age);

  // Deletes leftovers of crashed writers older than MIN_AGE: a .json whose .eml
  // never appeared and temporary files. Younger ones may belong to a store()
  // still running in another process; and arrays' first-place claims two days
  // old. Returns how many files were removed.
  std::size_t clean_garbage(std::chrono::seconds min_age = std::chrono::hours(1));

  // Keeps BYTES preallocated in DIR/reserve (created when missing and there is
  // room). store() on a full disk frees it and tries once more.
  void keep_reserve(std::uint64_t bytes);

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace gpualert::notify
