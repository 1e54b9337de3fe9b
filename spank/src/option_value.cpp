#include "option_value.hpp"

#include <cstring>

#include "gpualert/config/destinations.hpp"

namespace gpualert::spank {

std::optional<OptionValue> parse_option_value(const char* raw, std::string& why) {
  OptionValue v;
  v.given = true;
  if (raw == nullptr || raw[0] == '\0' || std::strcmp(raw, "(null)") == 0) return v;
  const std::string s = raw;
  if (s.size() > 1024) {
    why = "--gpualert: value too long";
    return std::nullopt;
  }
  if (s == "on" || s == "yes") return v;
  if (s == "off" || s == "no") {
    v.off = true;
    return v;
  }
  std::string reason;
  if (!config::parse_destination_list(s, v.to, reason)) {
    why = "--gpualert: expected on, off, or mail addresses and channels (a@b,mailto:c@d,slack:NAME): " + reason;
    return std::nullopt;
  }
  return v;
}

}  // namespace gpualert::spank
