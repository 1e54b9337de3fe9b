#pragma once
// Per-line evidence collection: every line goes through one RE2::Set (all line
// patterns at once); only the rules that matched run their own RE2 for captures.
// Keeps bounded evidence: the first and last few hits of each rule.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "launcher_summary.hpp"
#include "loss_tracker.hpp"
#include "progress_tracker.hpp"
#include "rule_set.hpp"
#include "traceback_parser.hpp"

namespace gpualert::classify::detail {

using Facts = std::vector<std::pair<std::string, std::string>>;

// One piece of evidence: a rule that matched a line (or an exception on it).
struct Hit {
  int rule = -1;
  std::uint64_t line = 0;
  std::string text;  // printable, cut
  Facts facts;
  std::vector<std::string> line_classes;  // cause classes matched on this line, best first
  bool on_warning = false;  // the line looked like a warning: not a cause on its own
  bool demoted = false;     // e.g. a generic wrapper later in an exception chain
  int signal = 0;           // for signal rules: the signal number proven
  int section = -1;         // index into ScanResult::sections, -1 = none
};

struct RuleHits {
  static constexpr std::size_t kKeep = 3;
  std::vector<Hit> first;  // the first kKeep hits
  std::deque<Hit> last;    // the last kKeep hits after those
  std::uint64_t count = 0;
  void add(Hit h);
  std::vector<const Hit*> all() const;
};

struct ScanResult {
  std::vector<RuleHits> hits;  // indexed like RuleSet::rules
  LossTracker loss;
  ProgressTracker progress;
  LauncherSummary launcher;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::uint64_t long_lines = 0;
  bool partial = false;
  std::uint64_t skipped_bytes = 0;
  std::string gap;  // what was not read, and why (from the reader)
  std::uint64_t exceptions = 0;
  std::uint64_t tracebacks = 0;
  std::uint64_t last_progress_line = 0;  // last line with a loss value or a completion marker
  std::uint64_t last_nonempty_line = 0;
  std::deque<Citation> tail;             // the last kTailLines lines
  // Labels of "==> ... <==" section headers (per-task logs joined by the Slurm helper,
  // `tail` of several files): which task / node a hit came from.
  std::vector<std::string> sections;
  static constexpr std::size_t kMaxSections = 4096;
  static constexpr std::size_t kTailLines = 50;
};

class LogScanner {
 public:
  explicit LogScanner(const RuleSet& rules);
  void line(std::string_view text, std::uint64_t lineno);
  // Moves the raw tail ring into the result (made printable once, not per line).
  ScanResult& result();

 private:
  void segment(std::string_view text, std::uint64_t lineno);
  void exception_hits(const ParsedException& e, std::uint64_t lineno, std::string_view text,
                      std::vector<Hit>& out);
  Hit make_hit(int rule, std::uint64_t lineno, std::string_view text) const;
  void capture(const Rule& r, std::string_view subject, Hit& h) const;

  const RuleSet& rules_;
  ScanResult res_;
  TracebackParser tb_;
  bool section_header(std::string_view text);
  int section_ = -1;
  std::string section_key_;  // stands in for a rank prefix inside a section
  std::vector<int> matched_;  // scratch
  std::vector<int> chain_seen_;  // chains that already produced an exception (bounded)
  // The last lines, raw and cut; reused buffers so a line costs no allocation.
  std::vector<std::pair<std::uint64_t, std::string>> ring_ =
      std::vector<std::pair<std::uint64_t, std::string>>(ScanResult::kTailLines);
  std::size_t ring_next_ = 0;
  std::string quotes_;  // a line with typographic quotes, rewritten with ASCII ones
  bool finished_ = false;
};

// Fills {name} placeholders from FACTS; a [[...]] segment whose placeholders are not
// all known is dropped. Unknown placeholders outside segments become "?".
std::string fill_template(std::string_view tmpl, const Facts& facts);
const std::string* find_fact(const Facts& facts, std::string_view key);

}  // namespace gpualert::classify::detail
