#include "line_shape.hpp"

#include <cstring>

#include "progress_thinner.hpp"

namespace gpualert::classify::detail {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
// The blanks a regular expression's \s takes (a newline cannot occur inside a line).
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// "[ 12" after optional blanks, from AT.
bool bracket_digit_at(std::string_view s, std::size_t at) {
  while (at < s.size() && space(s[at])) ++at;
  if (at >= s.size() || s[at] != '[') return false;
  ++at;
  while (at < s.size() && space(s[at])) ++at;
  return at < s.size() && digit(s[at]);
}

bool bracket_step(std::string_view s) {
  if (bracket_digit_at(s, 0)) return true;
  for (std::size_t cr = s.find('\r'); cr != std::string_view::npos; cr = s.find('\r', cr + 1))
    if (bracket_digit_at(s, cr + 1)) return true;
  return false;
}

// "/123 [" or "/7(".
bool fraction_bar(std::string_view s) {
  for (std::size_t at = s.find('/'); at != std::string_view::npos; at = s.find('/', at + 1)) {
    std::size_t i = at + 1;
    if (i >= s.size() || !digit(s[i])) continue;
    while (i < s.size() && digit(s[i])) ++i;
    while (i < s.size() && space(s[i])) ++i;
    if (i < s.size() && (s[i] == '[' || s[i] == '(')) return true;
  }
  return false;
}

// "YYYY-MM-DD HH:MM:SS": found from each ':' that could be the one after the hour.
bool date_time(std::string_view s) {
  static constexpr char kShape[] = "dddd-dd-dd_dd:dd:dd";  // d digit, - '-' or '/', _ ' ' or 'T'
  constexpr std::size_t kLen = sizeof kShape - 1, kColon = 13;
  for (std::size_t c = s.find(':', kColon); c != std::string_view::npos; c = s.find(':', c + 1)) {
    const std::size_t start = c - kColon;
    if (start + kLen > s.size()) return false;
    bool ok = true;
    for (std::size_t k = 0; ok && k < kLen; ++k) {
      const char ch = s[start + k];
      switch (kShape[k]) {
        case 'd': ok = digit(ch); break;
        case '-': ok = ch == '-' || ch == '/'; break;
        case '_': ok = ch == ' ' || ch == 'T'; break;
        default: ok = ch == kShape[k]; break;
      }
    }
    if (ok) return true;
  }
  return false;
}

}  // namespace

std::uint16_t shape_cues(std::string_view line) {
  std::uint16_t bits = 0;
  if (bracket_step(line) || fraction_bar(line)) bits |= kCueStep;
  if (date_time(line)) bits |= kCueStamp;
  return bits;
}

}  // namespace gpualert::classify::detail
