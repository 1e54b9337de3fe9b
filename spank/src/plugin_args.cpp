#include "plugin_args.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace gpualert::spank {
namespace {

// Paths from plugstack.conf are the admin's, but a typo must not make root
// write somewhere odd: absolute, no "..", no control characters.
bool sane_path(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.size() > 1024) return false;
  if (p.find("/../") != std::string::npos || p.ends_with("/..")) return false;
  for (unsigned char c : p)
    if (c < 0x20 || c == 0x7F) return false;
  return true;
}

// A plain decimal count, with an optional K/M/G suffix for sizes.
std::optional<std::uint64_t> number(const std::string& v) {
  if (v.empty() || v.size() > 15 || !std::isdigit(static_cast<unsigned char>(v[0]))) return std::nullopt;
  std::size_t used = 0;
  std::uint64_t n = std::stoull(v, &used);
  const std::string unit = v.substr(used);
  if (unit == "K") n <<= 10;
  else if (unit == "M") n <<= 20;
  else if (unit == "G") n <<= 30;
  else if (!unit.empty()) return std::nullopt;
  return n;
}

}  // namespace

PluginArgs parse_plugin_args(int argc, char** argv) {
  PluginArgs a;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i] ? argv[i] : "";
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "default") {
      if (val == "on") a.default_on = true;
      else if (val == "off") a.default_on = false;
      else a.errors.push_back("default must be on or off, got '" + val + "'");
    } else if (key == "spool" || key == "conf" || key == "helper") {
      if (!sane_path(val)) {
        a.errors.push_back(key + " must be an absolute path, got '" + val + "'");
        continue;
      }
      (key == "spool" ? a.spool : key == "conf" ? a.conf : a.helper) = val;
    } else if (key == "allow_to") {
      a.recipients.allow = config::split_patterns(val);
    } else if (key == "max_to" || key == "log_head" || key == "log_tail" || key == "log_job" || key == "spool_floor") {
      const auto n = number(val);
      if (!n || (key == "max_to" && *n > 100)) {
        a.errors.push_back(key + " must be a number" + (key == "max_to" ? " up to 100" : "") + ", got '" + val + "'");
        continue;
      }
      if (key == "max_to") a.recipients.max = static_cast<unsigned>(*n);
      else (key == "log_head" ? a.log_head : key == "log_tail" ? a.log_tail : key == "log_job" ? a.log_job : a.spool_floor) = *n;
    } else {
      a.errors.push_back("unknown argument '" + arg +
                         "' (known: default=, spool=, conf=, helper=, allow_to=, max_to=, log_head=, log_tail=, log_job=, spool_floor=)");
    }
  }
  return a;
}

}  // namespace gpualert::spank
