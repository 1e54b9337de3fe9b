// Parsers for the typed values of settings: sizes and durations.
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "gpualert/config/loader.hpp"

namespace gpualert::config {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Splits "12.5MiB" into 12.5 and "mib". False when there is no leading number.
bool split_number(const std::string& text, double& number, std::string& unit) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return false;
  const auto r = std::from_chars(text.data(), text.data() + i, number);
  if (r.ec != std::errc() || r.ptr != text.data() + i) return false;
  std::size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  unit = lower(text.substr(j));
  return std::isfinite(number) && number >= 0;
}

}  // namespace

std::optional<std::uint64_t> parse_size(const std::string& text) {
  double n = 0;
  std::string unit;
  if (!split_number(text, n, unit)) return std::nullopt;
  double mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib") mult = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib") mult = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib") mult = 1024.0 * 1024 * 1024;
  else return std::nullopt;
  const double bytes = n * mult;
  if (bytes > 1e18) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  double n = 0;
  std::string unit;
  if (!split_number(text, n, unit)) return std::nullopt;
  double ms = 0;
  if (unit.empty() || unit == "s") ms = n * 1000;
  else if (unit == "ms") ms = n;
  else if (unit == "m" || unit == "min") ms = n * 60'000;
  else return std::nullopt;
  if (ms > 1e12) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

}  // namespace gpualert::config
