#pragma once
// The decision in progress: the inputs, the evidence the analyzers collected, and the
// verdict being written. Its methods are the shared vocabulary for writing a verdict
// (cite a line, add a secondary finding, copy a class's wording); the analyzers that
// fill and read it live in their own files (analyzers.hpp).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "candidate.hpp"
#include "exit_status.hpp"
#include "gpualert/classifier/verdict.hpp"
#include "../log_scanner.hpp"
#include "../rule_set.hpp"

namespace gpualert::classify::detail {

// How strongly a signal a log line names speaks for a crash: SEGV, KILL, BUS, ABRT, ILL and
// FPE above TERM, INT and the rest; 0 for none.
inline int signal_rank(int s) { return s == 11 || s == 9 || s == 7 || s == 6 || s == 4 || s == 8 ? 2 : (s ? 1 : 0); }

struct Decision {
  Decision(const RuleSet& r, const ScanResult& s, const RunStatus& status);

  const RuleSet& rules;
  const ScanResult& scan;
  const RunStatus& st;
  std::string slurm;  // Slurm's state as one word (state_word), "" when not given
  Exit exit_status;
  Verdict v;

  // Evidence, filled by the collectors.
  std::map<std::string, Cand> causes;     // non-recovered causes, best per class
  std::map<std::string, Cand> recovered;  // causes that training ran past (exit 0)
  std::map<std::string, Cand> weak;       // warnings / demoted exceptions / hints
  std::optional<Cand> disposition;        // the scheduler's action
  std::vector<const Hit*> signal_hits;
  int log_signal = 0;  // the strongest signal the log reports
  std::uint64_t log_signal_line = 0;
  const Hit* log_signal_hit = nullptr;
  std::vector<std::string> event_classes;  // classes the kernel log independently supports
  std::uint64_t event_throttle = 0;
  bool completed_by_log = false;  // a pasted log whose program says it finished

  // Reading.
  const Rule& rule(const Hit& h) const { return rules.rules[static_cast<std::size_t>(h.rule)]; }
  std::string says(const Hit& h) const;
  // Which task wrote the line: the Slurm helper's section ("srun #0, node n1, task 3")
  // or the launcher's rank prefix ("rank 3"); "" when the log does not say.
  std::string where(const Hit& h) const;
  int rule_index(const std::string& id) const;  // -1 when the rule set has no such rule
  std::string gap_text() const;
  // "the loss went from 2.2 (line 46) to 0.33 (line 1608) over N values", or with the
  // medians of the first and last values and the lines they span.
  std::string loss_summary() const;
  double confidence(const Cand& c, int agree) const;

  // Evidence.
  void add_cand(Cand c);  // into causes, or weak for warnings / demoted / hints

  // Writing.
  void set_class(const std::string& cls);
  void cite(const Hit& h, std::size_t max_shows);
  void cite_marker(const Marker& m, const std::string& rule, const std::string& claim);
  void cite_loss_ends();  // the first and last loss lines as printed, as evidence
  void add_text(const std::string& cls, const Facts& facts);
  void finding(const std::string& cls, std::string summary, double conf, const std::vector<const Hit*>& ev);
  // Recovered errors and weak (warning-level) causes, as secondary findings; PRIMARY is skipped.
  void add_side_findings(const std::string& primary);
  // The exit status, Slurm's state and the time used against the limit, as shows.
  void show_status();
  // What the scan could not read (a gap, over-long lines), as cannot-decide notes.
  void note_scan_limits();
};

}  // namespace gpualert::classify::detail
