#pragma once
// Appends the child's output to the durable log and records which stream each
// byte range came from, so stdout and stderr can be recovered separately.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpualert::runner {

enum class StreamTag : char { Out = 'o', Err = 'e', Gpualert = 'g' };

class LogWriter {
 public:
  // Takes ownership of both descriptors (either may be -1: nothing is written there).
  LogWriter(int log_fd, int streams_fd);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Never throws: a write failure (disk full, ...) is remembered in error() and
  // logging stops; the child's output still reaches its real destination.
  // Byte ranges also carry the time they arrived (ms since the writer was made),
  // at one-second resolution, so a silent stretch before the end can be seen.
  void append(StreamTag tag, std::string_view bytes);
  // For a caller that moved N bytes into fd() itself (splice): recorded as append() would.
  void account(StreamTag tag, std::uint64_t n);
  // The log's descriptor (-1 when there is none), and a failure the caller met writing it.
  int fd() const { return log_fd_; }
  int streams_fd() const { return streams_fd_; }
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  // Keeps at most about HEAD + TAIL bytes of the log on disk: once it outgrows them, the
  // bytes between its first HEAD and its last TAIL are released (a hole punched in the
  // file: offsets and the stream index stay exact, readers skip the hole). Where the file
  // system cannot punch holes the log keeps everything and note() says so.
  void keep_head_and_tail(std::uint64_t head, std::uint64_t tail) {
    keep_head_ = head;
    keep_tail_ = tail;
  }
  std::uint64_t released() const { return released_to_ > released_from_ ? released_to_ - released_from_ : 0; }
  // Said once, for the run's problems: "" when nothing went wrong releasing.
  const std::string& note() const { return note_; }
  // Flushes the stream index and fsyncs both files.
  void finish();

  std::uint64_t bytes() const { return offset_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  void close_segment();
  void start_segment(StreamTag tag);
  void flush_index();
  void write_all(int fd, std::string_view data);
  void maybe_sync();
  void maybe_release();

  int log_fd_;
  int streams_fd_;
  std::uint64_t offset_ = 0;
  std::uint64_t seg_start_ = 0;
  long long seg_ms_ = 0;
  char seg_tag_ = 0;
  std::chrono::steady_clock::time_point t0_;
  std::string index_;
  std::string error_;
  std::chrono::steady_clock::time_point last_sync_;
  std::uint64_t keep_head_ = 0, keep_tail_ = 0;  // 0: keep everything
  std::uint64_t released_from_ = 0, released_to_ = 0;
  std::string note_;
};

}  // namespace gpualert::runner
