#pragma once
// Compiled rules: the in-memory form of etc/rules/*.json. Internal to the library.
#include <map>
#include <memory>
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
  std::string says;           // claim template, {fact} placeholders
  std::vector<std::string> overrides;  // rule ids this rule silences on the same line
  std::vector<int> override_idx;       // resolved indices of `overrides`
  std::string pattern;  // as given to RE2 (with "(?i)" for icase rules)
  std::unique_ptr<RE2> re;
  std::unique_ptr<RE2> frames_re;  // exception rules only: must match the traceback's frames
  bool has_captures = false;
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
  std::unique_ptr<RE2::Set> line_set;  // all line rules: lines the fast matcher did not see as written
  std::vector<int> progress_rules;     // line rules with Role::progress / Role::done
  std::vector<int> done_rules;
  // Selects the lines worth reading (line_selection.hpp); null: read every line.
  std::unique_ptr<FastMatcher> matcher;
  std::vector<int> slow_line_rules;  // rules the matcher cannot select: RE2 on every line
  std::unique_ptr<RE2::Set> slow_set;
  std::vector<std::string> engine_notes;  // what the matcher could not take, for the user
  std::map<std::string, ClassText, std::less<>> classes;

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
