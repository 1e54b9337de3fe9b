// A terminal screen: the headline first, then the three parts and the remedy.
#include <cstdio>
#include <string>

#include "gpualert/classifier/verdict_format.hpp"
#include "gpualert/common/text.hpp"

namespace gpualert::classify {
namespace {

void section(std::string& out, const char* title, const std::vector<std::string>& items, std::size_t max) {
  if (items.empty()) return;
  out += title;
  out += '\n';
  std::size_t n = 0;
  for (const auto& s : items) {
    if (n++ == max) {
      out += "  ... (" + std::to_string(items.size() - max) + " more)\n";
      break;
    }
    out += "  - " + one_line(s, 300) + "\n";
  }
}

}  // namespace

std::string to_text(const Verdict& v) {
  std::string out;
  char conf[16];
  std::snprintf(conf, sizeof conf, "%.0f%%", v.confidence * 100.0);
  out += "Verdict: " + v.cls + "  (family " + v.family + ", attribution " + v.attribution + ", confidence " + conf + ")\n";
  section(out, "What the data shows:", v.shows, 6);
  if (!v.evidence.empty()) {
    out += "Evidence:\n";
    std::size_t n = 0;
    for (const auto& c : v.evidence) {
      if (n++ == 5) break;
      out += "  " + std::to_string(c.line) + ": " + one_line(c.text, 160) + "\n";
    }
  }
  section(out, "What it implies:", v.implies, 4);
  section(out, "What it cannot decide:", v.cannot_decide, 4);
  if (!v.remedy.empty()) out += "Remedy:\n  " + one_line(v.remedy, 600) + "\n";
  if (!v.secondary.empty()) {
    out += "Also found:\n";
    std::size_t n = 0;
    for (const auto& f : v.secondary) {
      if (n++ == 4) break;
      out += "  - " + f.cls + ": " + one_line(f.summary, 200) + "\n";
    }
  }
  out += "Read " + std::to_string(v.lines_read) + " lines (" + human_size(v.bytes_read) + ")" +
         (v.partial_scan ? ", head and tail only" : "") + ".\n";
  return out;
}

}  // namespace gpualert::classify
