#pragma once
// The diagnosis engine. Rules are data (etc/rules/*.json, compiled in as the
// built-in set; sites may add files). Patterns use RE2 (linear time on any input);
// a Hyperscan database of all of them picks the lines worth reading.
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::classify {

// A rule file that does not parse or validate; what() names file and line.
class RuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RuleSet;  // compiled rules; defined in the implementation

class Classifier {
 public:
  // The built-in rules plus EXTRA rule files (a site's additions). Throws RuleError.
  static Classifier with_builtin_rules(const std::vector<std::filesystem::path>& extra = {});
  // The same, but if EXTRA do not compile: the built-in rules alone, and why in NOTE.
  // A broken site rule must never cost a job its message. Throws only if the
  // built-in rules themselves fail (a build defect).
  static Classifier with_builtin_rules_or_alone(const std::vector<std::filesystem::path>& extra, std::string& note);
  // Only the rules in FILES. Throws RuleError.
  static Classifier from_files(const std::vector<std::filesystem::path>& files);

  // Streams the log (any size, any bytes) with bounded memory.
  // Throws std::system_error if the file cannot be opened.
  Verdict classify_file(const std::filesystem::path& log, const RunStatus& status) const;
  // Reads the descriptor to EOF (used for stdin).
  Verdict classify_fd(int fd, const RunStatus& status) const;
  Verdict classify_text(std::string_view text, const RunStatus& status) const;

  std::size_t rule_count() const;
  // The usual remedy of class CLS as the rules word it ("" when they say none).
  std::string remedy_for(std::string_view cls) const;
  // What the fast matcher could not take (each such rule is checked on every line,
  // slower): known once its database is built (a cached one is loaded with the rules;
  // otherwise the first log over a few MiB builds it, or build_fast_matcher()).
  const std::vector<std::string>& engine_notes() const;
  // Builds (or loads) the fast matcher's database now; false if it cannot be used.
  bool build_fast_matcher() const;
  // Read every line in full with RE2 alone, as a reference for the fast path (tests,
  // `gpualert classify --reference`). Same verdicts, much slower.
  void set_reference_scan(bool on) { reference_ = on; }
  // The decision stage's own confidence, before the rule set's calibration (for fitting it).
  void set_raw_confidence(bool on) { raw_confidence_ = on; }
  // What the rules' calibration makes of raw confidence RAW for a verdict of class CLS.
  double calibrated(double raw, std::string_view cls) const;

  // The shared compiled rules, for a LiveScan (live_scan.hpp).
  const std::shared_ptr<const RuleSet>& rules() const { return rules_; }

  Classifier(Classifier&&) noexcept;
  Classifier& operator=(Classifier&&) noexcept;
  ~Classifier();

 private:
  explicit Classifier(std::shared_ptr<const RuleSet> rules);
  std::shared_ptr<const RuleSet> rules_;
  bool reference_ = false;
  bool raw_confidence_ = false;
};

}  // namespace gpualert::classify
