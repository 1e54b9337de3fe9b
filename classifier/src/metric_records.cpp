#include "metric_records.hpp"

#include <algorithm>
#include <cctype>

namespace gpualert::classify::detail {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '/' || c == '.' || c == '-'; }

// A value after "name:" or "name=": "nan", "inf", "-inf" (non-finite) or a number. Returns
// the length read (0: not a value).
std::size_t value_at(std::string_view s, bool& nonfinite) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  for (std::string_view w : {"nan", "NaN", "inf", "Inf"})
    if (s.substr(i, 3) == w && (i + 3 >= s.size() || !std::isalpha(static_cast<unsigned char>(s[i + 3])))) {
      nonfinite = true;
      return i + 3;
    }
  bool any_digit = false;
  for (; i < s.size() && (digit(s[i]) || s[i] == '.'); ++i) any_digit = any_digit || digit(s[i]);
  if (!any_digit) return 0;
  nonfinite = false;
  return i;
}

}  // namespace

void MetricRecords::feed(std::string_view line, std::uint64_t lineno, bool may_be_nonfinite) {
  // The cheap test every line passes through. Finite records matter only until one is
  // seen, and again while a non-finite streak runs (a record that recovers ends it).
  if (finite_ && !streak_ && !may_be_nonfinite) return;
  if (std::count(line.begin(), line.end(), ':') + std::count(line.begin(), line.end(), '=') < 3) return;
  unsigned metrics = 0, nonfinite = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != ':' && line[i] != '=') continue;
    // The name before the separator: a word that starts with a letter.
    std::size_t b = i;
    while (b > 0 && line[b - 1] == ' ') --b;
    const std::size_t name_end = b;
    while (b > 0 && name_char(line[b - 1])) --b;
    if (b == name_end || !std::isalpha(static_cast<unsigned char>(line[b]))) continue;
    std::size_t v = i + 1;
    while (v < line.size() && line[v] == ' ') ++v;
    bool nf = false;
    const std::size_t n = value_at(line.substr(v), nf);
    if (!n) continue;
    ++metrics;
    if (nf) ++nonfinite;
    i = v + n - 1;
  }
  if (metrics < 3) return;
  if (nonfinite == 0) {
    ++finite_;
    streak_ = 0;
  } else if (nonfinite >= 3 && 3 * nonfinite >= 2 * metrics) {
    if (!streak_++) {
      streak_start_ = lineno;
      streak_nonfinite_ = nonfinite;
      streak_metrics_ = metrics;
    }
  }
}

}  // namespace gpualert::classify::detail
