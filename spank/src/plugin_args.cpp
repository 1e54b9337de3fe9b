#include "plugin_args.hpp"

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
    } else {
      a.errors.push_back("unknown argument '" + arg + "' (known: default=, spool=, conf=, helper=)");
    }
  }
  return a;
}

}  // namespace gpualert::spank
