#include "wording.hpp"

#include <cctype>
#include <chrono>
#include <cstdio>

#include "gpualert/common/text.hpp"
#include "../traceback_parser.hpp"

namespace gpualert::classify::detail {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string rank_of(const std::string& line) {
  const LineView lv = strip_rank_prefix(line);
  std::string digits;
  for (char c : lv.prefix) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
    else if (!digits.empty()) break;
  }
  return digits;
}

std::string duration_text(double seconds) {
  return human_duration(std::chrono::milliseconds(static_cast<long long>(seconds * 1000)));
}

}  // namespace gpualert::classify::detail
