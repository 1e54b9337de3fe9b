// The machine contract: stable keys (see verdict_format.hpp).
#include "gpualert/classifier/verdict_format.hpp"

#include <cmath>

namespace gpualert::classify {
namespace {

nlohmann::json cites(const std::vector<Citation>& v) {
  auto a = nlohmann::json::array();
  for (const auto& c : v) a.push_back({{"line", c.line}, {"text", c.text}, {"rule", c.rule}});
  return a;
}

double round2(double x) { return std::round(x * 100.0) / 100.0; }

}  // namespace

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json j;
  j["class"] = v.cls;
  j["family"] = v.family;
  j["attribution"] = v.attribution;
  j["confidence"] = round2(v.confidence);
  j["shows"] = v.shows;
  j["implies"] = v.implies;
  j["cannot_decide"] = v.cannot_decide;
  j["remedy"] = v.remedy;
  j["evidence"] = cites(v.evidence);
  auto sec = nlohmann::json::array();
  for (const auto& f : v.secondary)
    sec.push_back({{"class", f.cls}, {"summary", f.summary}, {"confidence", round2(f.confidence)}, {"evidence", cites(f.evidence)}});
  j["secondary"] = sec;
  j["lines_read"] = v.lines_read;
  j["bytes_read"] = v.bytes_read;
  j["partial_scan"] = v.partial_scan;
  // Added keys.
  auto facts = nlohmann::json::object();
  for (const auto& [k, val] : v.facts)
    if (!facts.contains(k)) facts[k] = val;
  j["facts"] = facts;
  j["broader"] = v.broader;
  j["long_lines"] = v.long_lines;
  j["tail"] = cites(v.tail);
  return j;
}

}  // namespace gpualert::classify
