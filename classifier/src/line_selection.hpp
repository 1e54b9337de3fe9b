#pragma once
// Which lines the scanner reads in full, and why: one fast-matcher database holds the
// line rules, the progress tracker's cues and the structural triggers (a traceback, a
// launcher's failure summary, a section header, typographic quotes). A line none of
// them matches is only counted.
#include <functional>
#include <string>
#include <vector>

namespace gpualert::classify::detail {

struct RuleSet;

// Match ids: below kCueIdBase, a position in RuleSet::line_rules; then the cues of
// progress_cues(); then the triggers of evidence_triggers().
inline constexpr unsigned kCueIdBase = 1u << 20;
inline constexpr unsigned kTriggerIdBase = 1u << 21;

const std::vector<const char*>& evidence_triggers();

// Builds SET.matcher (from CACHE_DIR when it was built before), SET.slow_* for the
// rules it cannot select, and SET.engine_notes saying so. VALIDATE (which throws for a
// bad pattern) runs unless the cache holds a database for exactly these patterns: one
// is only written after they validated.
void attach_matcher(RuleSet& set, const std::string& cache_dir, const std::function<void()>& validate);

}  // namespace gpualert::classify::detail
