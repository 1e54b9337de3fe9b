#pragma once
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/verdict_format.hpp"

namespace gpualert::classify::test {

inline const Classifier& builtin() {
  static const Classifier c = Classifier::with_builtin_rules();
  return c;
}

// The decision stage's own weighing of its evidence, before the rule set's calibration:
// what tests of "this reading is weaker than that one" compare.
inline const Classifier& uncalibrated() {
  static const Classifier c = [] {
    auto x = Classifier::with_builtin_rules();
    x.set_raw_confidence(true);
    return x;
  }();
  return c;
}

inline RunStatus exit_status(std::optional<int> code, std::optional<std::string> slurm = std::nullopt) {
  RunStatus s;
  s.exit_code = code;
  s.slurm_state = std::move(slurm);
  return s;
}

inline Verdict run(const std::string& log, std::optional<int> code, std::optional<std::string> slurm = std::nullopt) {
  return builtin().classify_text(log, exit_status(code, std::move(slurm)));
}

inline double raw_confidence(const std::string& log, std::optional<int> code,
                             std::optional<std::string> slurm = std::nullopt) {
  return uncalibrated().classify_text(log, exit_status(code, std::move(slurm))).confidence;
}

inline bool has_secondary(const Verdict& v, const std::string& cls) {
  for (const auto& f : v.secondary)
    if (f.cls == cls) return true;
  return false;
}

// Every *.log under DIR, sorted (none when DIR is absent).
inline std::vector<std::filesystem::path> logs_under(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".log") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string to_text_for_test(const Verdict& v) { return "\n" + to_text(v); }

}  // namespace gpualert::classify::test
