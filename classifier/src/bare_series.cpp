#include "bare_series.hpp"

#include <cctype>
#include <string>

namespace gpualert::classify::detail {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "nan", "inf", "-inf" or a decimal with a fraction ("10.56", "-0.5", "1.2e-3"): a
// measured value, not another counter. Sets NONFINITE; returns the length read, 0 if none.
std::size_t value_at(std::string_view s, bool& nonfinite) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  for (std::string_view word : {"nan", "inf"})
    if (s.substr(i, 3) == word) {
      nonfinite = true;
      return i + 3;
    }
  const std::size_t int_start = i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == int_start || i >= s.size() || s[i] != '.') return 0;
  const std::size_t frac_start = ++i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == frac_start) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    const std::size_t exp_start = j;
    while (j < s.size() && digit(s[j])) ++j;
    if (j > exp_start) i = j;
  }
  nonfinite = false;
  return i;
}

}  // namespace

void BareSeries::feed(std::string_view line, std::uint64_t lineno) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size() || !digit(line[i])) return;  // the cheap test every line passes through
  const std::size_t counter_start = i;
  while (i < line.size() && digit(line[i])) ++i;
  if (i - counter_start > 7) return;
  const std::size_t sep_start = i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',' || line[i] == ':' || line[i] == '|')) ++i;
  if (i == sep_start) return;
  bool nonfinite = false;
  const std::size_t n = value_at(line.substr(i), nonfinite);
  if (n == 0) return;
  i += n;
  // Only decoration may follow (spaces, a row of stars or dashes).
  for (; i < line.size(); ++i)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '*' && line[i] != '-' && line[i] != '=' && line[i] != '#') return;
  const std::uint64_t counter = std::stoull(std::string(line.substr(counter_start, sep_start - counter_start)));
  // A counter that goes back starts a new series (another run, or not a counter at all).
  if (any_ && counter <= last_counter_) finite_ = nonfinite_ = streak_ = 0;
  any_ = true;
  last_counter_ = counter;
  if (nonfinite) {
    ++nonfinite_;
    if (!streak_++) streak_start_ = lineno;
  } else {
    ++finite_;
    streak_ = 0;
  }
}

}  // namespace gpualert::classify::detail
