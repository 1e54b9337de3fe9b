#pragma once
// Evidence collection over blocks of lines. The fast matcher (line_selection.hpp) finds
// the few lines worth reading; only those are read in full: their rules are confirmed
// (and their facts extracted) with RE2, tracebacks parsed, progress tracked (through the
// thinner for long steady stretches). Every other line is only counted. Keeps bounded
// evidence: the first and last few hits of each rule.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "launcher_summary.hpp"
#include "fast_matcher.hpp"
#include "bare_series.hpp"
#include "metric_records.hpp"
#include "loss_tracker.hpp"
#include "progress_thinner.hpp"
#include "table_reader.hpp"
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
  BareSeries bare;  // counter-and-number lines that name no metric
  MetricRecords records;  // lines of three or more named values
  ProgressTracker progress;
  LauncherSummary launcher;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::uint64_t long_lines = 0;
  std::uint64_t progress_lines_read = 0, progress_lines_skipped = 0;  // by the thinner
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

// REFERENCE: read every line in full and match it with RE2 alone, as the scanner did
// before the fast matcher (what the fast path must reproduce; used by tests and
// whenever the matcher is unavailable).
struct ScanOptions {
  bool reference = false;
  bool build_matcher = true;  // compile the matcher's database if no cached one exists
};

class LogScanner {
 public:
  explicit LogScanner(const RuleSet& rules, ScanOptions opt = {});
  // LINES holds whole lines, each ending in '\n' except perhaps the last; the first is
  // line FIRST. Returns the number of lines.
  std::uint64_t block(std::string_view lines, std::uint64_t first);
  // Flushes held progress lines and moves the tail ring into the result.
  ScanResult& result();
  // What was found so far, while lines still come (a live view; the thinner may still
  // hold a few progress lines of a steady stretch).
  const ScanResult& peek() const { return res_; }
  // Reads the progress lines the thinner holds now (a live view must not lag behind).
  void flush_progress() { thinner_.flush(); }

  // The first part of the log is read in full; after it progress lines are thinned.
  static constexpr std::uint64_t kDenseHeadBytes = 1u << 20;
  // Lines after a traceback / launcher summary line that are read whatever they say.
  static constexpr std::uint64_t kDenseAfter = 64;

 private:
  void read_line(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep);
  void segment(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep);
  void queue_progress(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep);
  void read_progress(const PendingLine& p);
  void skip_progress(const PendingLine& p);
  void exception_hits(const ParsedException& e, std::uint64_t lineno, std::string_view text,
                      std::vector<Hit>& out);
  Hit make_hit(int rule, std::uint64_t lineno, std::string_view text, int section) const;
  void capture(const Rule& r, std::string_view subject, Hit& h) const;
  bool section_header(std::string_view text);
  std::string_view ascii_quotes(std::string_view text, std::string& buf) const;

  const RuleSet& rules_;
  ScanOptions opt_;
  const FastMatcher* matcher_ = nullptr;
  ScanResult res_;
  TracebackParser tb_;
  ProgressThinner thinner_;
  TableReader table_;
  int loss_rule_ = -1;  // progress.loss, whose finds a table row's loss joins  // the metrics table whose rows are being printed, if any
  std::unique_ptr<FastMatcher::Scratch> scratch_;
  std::vector<MatchEnd> matches_;  // scratch: one block's matches
  std::vector<int> line_ids_;      // scratch: the rules the matcher saw on one line
  std::vector<int> confirmed_;     // scratch
  std::vector<unsigned> forced_;   // per cue: first occurrences read so far
  // Lines read vs left out by the thinner, per kind: what was read tells how many of
  // the lines left out would have counted.
  struct Tally {
    std::uint64_t read = 0, counted = 0, unread = 0;
    std::uint64_t estimate() const { return read ? (unread * counted + read / 2) / read : 0; }
  };
  Tally loss_, loss_nonfinite_, steps_, saves_, throttles_;
  std::uint64_t bytes_seen_ = 0;
  std::uint64_t dense_until_ = 0;  // read every line up to this one
  std::uint64_t long_lines_ = 0;
  int section_ = -1;
  std::string section_key_;  // stands in for a rank prefix inside a section
  std::vector<int> chain_seen_;  // chains that already produced an exception (bounded)
  // The last lines, raw and cut; reused buffers so a line costs no allocation.
  std::vector<std::pair<std::uint64_t, std::string>> ring_ =
      std::vector<std::pair<std::uint64_t, std::string>>(ScanResult::kTailLines);
  std::size_t ring_next_ = 0;
  std::string quotes_, pquotes_;  // a line with typographic quotes, rewritten with ASCII ones
  bool line_rewritten_ = false;  // the line being read is in quotes_
  bool finished_ = false;

 public:
  std::uint64_t long_lines() const { return long_lines_; }
};

// Fills {name} placeholders from FACTS; a [[...]] segment whose placeholders are not
// all known is dropped. Unknown placeholders outside segments become "?".
std::string fill_template(std::string_view tmpl, const Facts& facts);
const std::string* find_fact(const Facts& facts, std::string_view key);

}  // namespace gpualert::classify::detail
