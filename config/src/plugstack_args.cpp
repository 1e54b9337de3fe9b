#include "gpualert/config/plugstack_args.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

namespace gpualert::config {
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
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  return parse_plugin_args(args);
}

PluginArgs parse_plugin_args(const std::vector<std::string>& args) {
  PluginArgs a;
  for (const std::string& arg : args) {
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (arg == "off") {
      a.off = true;
    } else if (key == "default") {
      if (val == "on") a.default_on = true;
      else if (val == "off") a.default_on = false;
      else a.errors.push_back("default must be on or off, got '" + val + "'");
    } else if (key == "prolog") {
      if (val == "on") a.prolog = true;
      else if (val == "off") a.prolog = false;
      else a.errors.push_back("prolog must be on or off, got '" + val + "'");
    } else if (key == "spool" || key == "conf" || key == "helper" || key == "gpus_dir") {
      if (!sane_path(val)) {
        a.errors.push_back(key + " must be an absolute path, got '" + val + "'");
        continue;
      }
      (key == "spool" ? a.spool : key == "conf" ? a.conf : key == "helper" ? a.helper : a.gpus_dir) = val;
    } else if (key == "partitions") {
      a.partitions = split_patterns(val);
      if (a.partitions.empty()) a.errors.push_back("partitions needs at least one partition name");
    } else if (key == "allow_to") {
      a.recipients.allow = split_patterns(val);
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
                         "' (known: off, default=, partitions=, prolog=, spool=, gpus_dir=, conf=, helper=, allow_to=, max_to=, log_head=, log_tail=, log_job=, spool_floor=)");
    }
  }
  return a;
}

}  // namespace gpualert::config

namespace gpualert::config {

bool on_by_default(const PluginArgs& a, const std::string& partition) {
  if (!a.default_on) return false;
  if (a.partitions.empty()) return true;
  return std::find(a.partitions.begin(), a.partitions.end(), partition) != a.partitions.end();
}

namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

void scan_file(const std::filesystem::path& file, PlugstackScan& out, int depth) {
  std::ifstream in(file);
  if (!in) {
    out.problems.push_back(file.string() + ": cannot read");
    return;
  }
  out.files_read.push_back(file.string());
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const auto w = words(line);
    if (w.empty()) continue;
    const std::string where = file.string() + ":" + std::to_string(n);
    if (w[0] == "include") {
      if (w.size() != 2) {
        out.problems.push_back(where + ": include takes one path or glob");
        continue;
      }
      if (depth >= 8) {
        out.problems.push_back(where + ": includes nested too deeply");
        continue;
      }
      std::filesystem::path pattern = w[1];
      if (pattern.is_relative()) pattern = file.parent_path() / pattern;
      glob_t g{};
      if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (std::size_t i = 0; i < g.gl_pathc; ++i) scan_file(g.gl_pathv[i], out, depth + 1);
      ::globfree(&g);
      continue;
    }
    if (w[0] != "required" && w[0] != "optional") {
      out.problems.push_back(where + ": a line starts with required, optional or include, not '" + w[0] + "'");
      continue;
    }
    if (w.size() < 2) {
      out.problems.push_back(where + ": no plugin path");
      continue;
    }
    if (std::filesystem::path(w[1]).filename() != "gpualert.so") continue;
    PlugstackEntry e;
    e.file = file;
    e.line = n;
    e.required = w[0] == "required";
    e.plugin = w[1];
    e.args = parse_plugin_args(std::vector<std::string>(w.begin() + 2, w.end()));
    out.entries.push_back(std::move(e));
  }
}

}  // namespace

PlugstackScan scan_plugstack(const std::filesystem::path& file) {
  PlugstackScan out;
  scan_file(file, out, 0);
  return out;
}

}  // namespace gpualert::config
