#pragma once
// Compiled rules: the in-memory form of etc/rules/*.json. Internal to the library.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "fast_matcher.hpp"

namespace gpualert::classify::detail {

// What a match means to the decision logic.
enum class Role {
  cause,        // names a failure class
  signal,       // proves a process got a signal; says nothing about why
  disposition,  // a scheduler/operator action (time limit, cancel, ...)
  progress,     // a training-progress line carrying a loss value
  done,         // a completion / checkpoint marker
  wrapper,      // a launcher's summary exception (ChildFailedError): not a cause
  hint,         // kept as a secondary finding only
};

enum class Scope { line, exception };

// An RE2 compiled on first use: a run reads few lines in full, so most rules are never
// needed, and compiling all of them cost more than classifying a short job's log.
// Patterns are validated when the rule files are loaded (or were, when the fast
// matcher's database for exactly these patterns was cached). Thread-safe.
class LazyRegex {
 public:
  LazyRegex() = default;
  explicit LazyRegex(std::string pattern);
  explicit operator bool() const { return p_ != nullptr; }
  const std::string& pattern() const { return p_->pattern; }
  const RE2& get() const;

 private:
  struct State {
    std::string pattern;
    std::once_flag once;
    std::unique_ptr<RE2> re;
  };
  std::unique_ptr<State> p_;
};

// The options every rule pattern is compiled with.
RE2::Options rule_regex_options();

struct Rule {
  std::string id;
  std::string cls;
  std::string file;  // where it was defined, for messages
  Scope scope = Scope::line;
  Role role = Role::cause;
  int priority = 0;
  int signal = 0;             // fixed signal number for Role::signal (0 = from captures)
  bool on_warnings = false;   // also counts on lines that look like warnings
  bool until_progress = false;  // a waiting state: training progress after the hit means it resolved
  bool marks_progress = true;   // a done marker that counts as training progress (a checkpoint save does, "finished" does not)
  std::string says;           // claim template, {fact} placeholders
  std::vector<std::string> overrides;  // rule ids this rule silences on the same line
  std::vector<int> override_idx;       // resolved indices of `overrides`
  std::string pattern;  // as given to RE2 (with "(?i)" for icase rules)
  LazyRegex re;
  LazyRegex frames_re;  // exception rules only: must match the traceback's frames
  LazyRegex frames_unless_re;  // exception rules only: must not match them (RE2 has no lookaround)
  // Facts to read from the match: named groups, or {match} in the claim (a rule with no
  // group that says "{match}" showed "(?)" before).
  bool has_captures() const {
    return says.find("{match}") != std::string::npos || re.get().NumberOfCapturingGroups() > 0;
  }
};

// Per-class wording and default priority.
struct ClassText {
  int priority = 0;
  bool has_priority = false;
  std::string headline;
  std::vector<std::string> implies;
  std::vector<std::string> cannot_decide;
  std::string remedy;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::vector<int> line_rules;       // RE2::Set index -> rule index
  std::vector<int> exception_rules;  // rule indices, in file order
  // All line rules at once, for lines the fast matcher did not see as written (built on
  // first use).
  const RE2::Set& line_set() const;
  bool line_set_ok() const { return (void)line_set(), line_set_compiled_; }
  std::vector<int> progress_rules;     // line rules with Role::progress / Role::done
  std::vector<int> done_rules;
  // Selects the lines worth reading (line_selection.hpp). Loaded with the rules when a
  // cached database exists; otherwise compiled when a log first needs it (BUILD): a
  // short log is read faster line by line than the database compiles.
  const FastMatcher* fast_matcher(bool build) const;
  struct MatcherPlan {
    std::vector<PatternSpec> specs;
    std::string salt, cache_dir;
  } matcher_plan;
  mutable std::mutex matcher_mutex;
  mutable bool matcher_tried = false;
  mutable std::unique_ptr<FastMatcher> matcher;
  mutable std::vector<int> slow_line_rules;  // rules the matcher cannot select: RE2 on every line
  mutable std::unique_ptr<RE2::Set> slow_set;
  mutable std::vector<std::string> engine_notes;  // what the matcher could not take, for the user
  std::map<std::string, ClassText, std::less<>> classes;
  // Raw confidence -> how often a verdict of that confidence is right, fitted on labelled
  // logs (rule files' "calibration"); piecewise linear, empty = the raw value.
  std::vector<std::pair<double, double>> calibration;
  // Per class named, what the map leaves over or under its share right (shrunk towards 0
  // for classes seen rarely): added after the map, the result kept within [0.05, 0.95].
  std::map<std::string, double, std::less<>> class_offset;
  double calibrate(double raw, std::string_view cls = {}) const;

 private:
  mutable std::once_flag line_set_once_;
  mutable std::unique_ptr<RE2::Set> line_set_;
  mutable bool line_set_compiled_ = false;
 public:

  const ClassText* text_for(std::string_view cls) const {
    auto it = classes.find(cls);
    return it == classes.end() ? nullptr : &it->second;
  }
};

// One rule file's text and the name used in error messages.
struct RuleSource {
  std::string name;
  std::string text;
};

// Parses and compiles SOURCES in order (a later rule with the same id replaces an
// earlier one; a later class entry overrides wording). Throws RuleError.
std::shared_ptr<const RuleSet> compile_rules(const std::vector<RuleSource>& sources);

// The files of etc/rules/ compiled into the binary (generated at build time).
const std::vector<RuleSource>& builtin_rule_sources();

}  // namespace gpualert::classify::detail
