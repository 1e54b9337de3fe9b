#pragma once
// Structural reading of Python tracebacks: "Traceback (most recent call last):",
// frames, then the final "Type: message" line, with chained exceptions. Ranks
// that prefix their lines ("[rank1]: ", "3: ") are tracked separately so
// interleaved multi-rank tracebacks stay apart.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpualert::classify::detail {

struct ParsedException {
  std::string type;
  std::string message;
  bool in_traceback = false;  // false: a bare "XyzError: ..." line with no traceback above it
  int chain = -1;             // exceptions of one chained group share this id
  int chain_pos = 0;          // 0 = first printed (the innermost cause)
  std::string rank;           // the line prefix, if any
  bool ignored = false;       // printed under "Exception ignored in ...": Python went on
  std::string frames;         // the traceback's frame and source lines, innermost last (bounded)
};

struct LineView {
  std::string_view body;    // the line without a rank prefix
  std::string_view prefix;  // "[rank1]:" etc., or empty
};

// Removes a launcher's rank/label prefix.
LineView strip_rank_prefix(std::string_view line);

class TracebackParser {
 public:
  enum class Kind { normal, structural, exception };
  struct Result {
    Kind kind = Kind::normal;  // structural: a header/frame/code line (no message rules)
    std::optional<ParsedException> exception;
  };
  Result feed(const LineView& lv);
  std::uint64_t tracebacks() const { return tracebacks_; }
  // The rank of the line just fed is inside a traceback (or just after one): its next
  // lines must all be fed, whatever they look like.
  bool busy() const { return last_ && (last_->state != State::idle || last_->ignored_next); }

 private:
  enum class State { idle, frames, after_exception };
  struct PerRank {
    State state = State::idle;
    bool pending_chain = false;
    int chain = -1;
    int chain_pos = 0;
    std::uint64_t age = 0;
    int since = 0;  // lines since the last exception line
    bool ignored_next = false;  // "Exception ignored in" came just before
    bool ignored = false;  // the current traceback is a non-fatal one
    std::string frames;    // frame lines of the traceback being read
    bool after_file = false;  // the last frame line was a "File ..." line: its source line may follow
  };
  PerRank& state_for(std::string_view prefix);
  Result feed_line(PerRank& st, const LineView& lv);
  std::map<std::string, PerRank, std::less<>> ranks_;
  int next_chain_ = 0;
  std::uint64_t tick_ = 0;
  std::uint64_t tracebacks_ = 0;
  const PerRank* last_ = nullptr;
};

}  // namespace gpualert::classify::detail
