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

namespace {

// Takes M as SET's matcher: the rules it could not take go to RE2 on every line.
void adopt(const RuleSet& set, std::unique_ptr<FastMatcher> m) {
  for (const auto& p : m->rejected()) {
    if (p.id >= kCueIdBase) {
      // Without its cues and triggers the matcher cannot stand in for reading every line.
      set.engine_notes.push_back("the fast matcher cannot take a built-in pattern (" + p.reason +
                                 "): every line is read with RE2 (slower)");
      return;
    }
  }
  for (const auto& p : m->rejected()) {
    const int idx = set.line_rules[p.id];
    set.slow_line_rules.push_back(idx);
    const Rule& r = set.rules[static_cast<std::size_t>(idx)];
    set.engine_notes.push_back("rule '" + r.id + "' (" + r.file + "): the fast matcher cannot take its pattern (" +
                               p.reason + "); it is checked with RE2 on every line (slower)");
  }
  if (!set.slow_line_rules.empty()) {
    set.slow_set = std::make_unique<RE2::Set>(rule_regex_options(), RE2::UNANCHORED);
    for (int idx : set.slow_line_rules) set.slow_set->Add(set.rules[static_cast<std::size_t>(idx)].pattern, nullptr);
    set.slow_set->Compile();
  }
  set.matcher = std::move(m);
}

}  // namespace

void attach_matcher(RuleSet& set, const std::string& cache_dir, const std::function<void()>& validate) {
  auto& plan = set.matcher_plan;
  plan.cache_dir = cache_dir;
  for (std::size_t i = 0; i < set.line_rules.size(); ++i) {
    const Rule& r = set.rules[static_cast<std::size_t>(set.line_rules[i])];
    plan.specs.push_back({translate_for_prefilter(r.pattern), static_cast<unsigned>(i), r.pattern});
  }
  const auto& cues = progress_cues();
  for (std::size_t i = 0; i < cues.size(); ++i)
    plan.specs.push_back({translate_for_prefilter(cues[i].expr), kCueIdBase + static_cast<unsigned>(i), ""});
  const auto& trig = evidence_triggers();
  for (std::size_t i = 0; i < trig.size(); ++i)
    plan.specs.push_back({trig[i], kTriggerIdBase + static_cast<unsigned>(i), ""});
  // The exception rules are not in the database, but a cache hit also vouches for them.
  for (int idx : set.exception_rules) {
    const Rule& r = set.rules[static_cast<std::size_t>(idx)];
    plan.salt += r.pattern + '\n' + (r.frames_re ? r.frames_re.pattern() : std::string()) + '\n' +
                 (r.frames_unless_re ? r.frames_unless_re.pattern() : std::string()) + '\n';
  }
  if (auto m = FastMatcher::load_cached(plan.specs, plan.salt, cache_dir)) {
    set.matcher_tried = true;
    adopt(set, std::move(m));
  } else {
    validate();
  }
}

const FastMatcher* RuleSet::fast_matcher(bool build) const {
  std::lock_guard<std::mutex> lock(matcher_mutex);
  if (!matcher && build && !matcher_tried) {
    matcher_tried = true;
    adopt(*this, FastMatcher::build(matcher_plan.specs, matcher_plan.salt, matcher_plan.cache_dir));
  }
  return matcher && !matcher->empty() ? matcher.get() : nullptr;
}

}  // namespace gpualert::classify::detail
