#include "checks.hpp"
#include "gpualert/classifier/classifier.hpp"

namespace gpualert::cli::check {

void check_rules(Report& r, const config::Settings& s, const char* area) {
  for (const auto& f : s.rule_files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) r.fail(area, "rule file missing or not a file", f.string());
  }
  try {
    const auto c = classify::Classifier::with_builtin_rules(s.rule_files);
    r.ok(area, "built-in rules" + (s.rule_files.empty() ? std::string() : " and " + std::to_string(s.rule_files.size()) +
                                                                                " site/user rule file(s)") + " compile");
    if (!c.build_fast_matcher())
      r.warn(area, "the fast matcher cannot be built here; logs are read with RE2 alone (slower)");
  } catch (const std::exception& e) {
    r.fail(area, e.what());
  }
}

}  // namespace gpualert::cli::check
