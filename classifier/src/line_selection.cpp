// Assembles the fast matcher's patterns and records what it cannot take.
#include "line_selection.hpp"

#include "fast_matcher.hpp"
#include "progress_tracker.hpp"
#include "rule_set.hpp"

namespace gpualert::classify::detail {

const std::vector<const char*>& evidence_triggers() {
  // Each is a superset of what the reader it feeds looks for (traceback_parser.cpp,
  // launcher_summary.cpp, LogScanner::section_header, the quote rewriting).
  static const std::vector<const char*> t = {
      R"(Traceback \(most recent call last\))",
      R"(File ")",
      R"(Exception ignored in)",
      R"(During handling of the above exception|The above exception was the direct cause)",
      R"((?:Error|Exception|Interrupt)(?::|\r|$))",
      R"(Root Cause \(first observed failure\))",
      R"((?:^|\r)==> )",
      R"(\xE2\x80[\x98\x99\x9C\x9D])",
  };
  return t;
}

void attach_matcher(RuleSet& set, const std::string& cache_dir) {
  std::vector<PatternSpec> specs;
  for (std::size_t i = 0; i < set.line_rules.size(); ++i) {
    const Rule& r = set.rules[static_cast<std::size_t>(set.line_rules[i])];
    specs.push_back({translate_for_prefilter(r.pattern), static_cast<unsigned>(i)});
  }
  const auto& cues = progress_cues();
  for (std::size_t i = 0; i < cues.size(); ++i)
    specs.push_back({translate_for_prefilter(cues[i].expr), kCueIdBase + static_cast<unsigned>(i)});
  const auto& trig = evidence_triggers();
  for (std::size_t i = 0; i < trig.size(); ++i) specs.push_back({trig[i], kTriggerIdBase + static_cast<unsigned>(i)});

  set.matcher = FastMatcher::build(specs, cache_dir);
  for (const auto& p : set.matcher->rejected()) {
    if (p.id >= kCueIdBase) {
      // Without its cues and triggers the matcher cannot stand in for reading every line.
      set.matcher.reset();
      set.engine_notes.push_back("the fast matcher cannot take a built-in pattern (" + p.reason +
                                 "): every line is read with RE2 (slower)");
      return;
    }
  }
  for (const auto& p : set.matcher->rejected()) {
    const int idx = set.line_rules[p.id];
    set.slow_line_rules.push_back(idx);
    const Rule& r = set.rules[static_cast<std::size_t>(idx)];
    set.engine_notes.push_back("rule '" + r.id + "' (" + r.file + "): the fast matcher cannot take its pattern (" +
                               p.reason + "); it is checked with RE2 on every line (slower)");
  }
  if (!set.slow_line_rules.empty()) {
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_max_mem(64 << 20);
    set.slow_set = std::make_unique<RE2::Set>(opts, RE2::UNANCHORED);
    for (int idx : set.slow_line_rules) set.slow_set->Add(set.rules[static_cast<std::size_t>(idx)].pattern, nullptr);
    set.slow_set->Compile();
  }
}

}  // namespace gpualert::classify::detail
