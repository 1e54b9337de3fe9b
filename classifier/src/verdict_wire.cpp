#include "gpualert/classifier/verdict_wire.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

namespace gpualert::classify {
namespace {

using nlohmann::json;

json cites(const std::vector<Citation>& v) {
  auto a = json::array();
  for (const auto& c : v) a.push_back({c.line, c.text, c.rule});
  return a;
}

std::vector<Citation> cites_from(const json& a) {
  std::vector<Citation> out;
  for (const auto& c : a) out.push_back({c.at(0).get<std::uint64_t>(), c.at(1).get<std::string>(), c.at(2).get<std::string>()});
  return out;
}

}  // namespace

std::string verdict_to_wire(const Verdict& v) {
  json j;
  j["cls"] = v.cls;
  j["family"] = v.family;
  j["attribution"] = v.attribution;
  j["confidence"] = v.confidence;
  j["shows"] = v.shows;
  j["implies"] = v.implies;
  j["cannot_decide"] = v.cannot_decide;
  j["remedy"] = v.remedy;
  j["evidence"] = cites(v.evidence);
  auto sec = json::array();
  for (const auto& f : v.secondary) sec.push_back({f.cls, f.summary, f.confidence, cites(f.evidence)});
  j["secondary"] = sec;
  j["counts"] = {v.lines_read, v.bytes_read, v.partial_scan, v.long_lines};
  j["facts"] = v.facts;
  j["broader"] = v.broader;
  j["tail"] = cites(v.tail);
  // JSON has no NaN: a non-finite loss travels as null.
  auto pts = json::array();
  for (const auto& p : v.loss_curve.points)
    pts.push_back({p.line, p.step, std::isfinite(p.value) ? json(p.value) : json(nullptr)});
  j["loss_curve"] = {v.loss_curve.key, v.loss_curve.total, pts};
  // "replace": a log line that is not UTF-8 must not make the hand-over fail.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<Verdict> verdict_from_wire(const std::string& text) {
  try {
    const json j = json::parse(text);
    Verdict v;
    v.cls = j.at("cls").get<std::string>();
    v.family = j.at("family").get<std::string>();
    v.attribution = j.at("attribution").get<std::string>();
    v.confidence = j.at("confidence").get<double>();
    v.shows = j.at("shows").get<std::vector<std::string>>();
    v.implies = j.at("implies").get<std::vector<std::string>>();
    v.cannot_decide = j.at("cannot_decide").get<std::vector<std::string>>();
    v.remedy = j.at("remedy").get<std::string>();
    v.evidence = cites_from(j.at("evidence"));
    for (const auto& f : j.at("secondary"))
      v.secondary.push_back({f.at(0).get<std::string>(), f.at(1).get<std::string>(), f.at(2).get<double>(),
                             cites_from(f.at(3))});
    const auto& n = j.at("counts");
    v.lines_read = n.at(0).get<std::uint64_t>();
    v.bytes_read = n.at(1).get<std::uint64_t>();
    v.partial_scan = n.at(2).get<bool>();
    v.long_lines = n.at(3).get<std::uint64_t>();
    v.facts = j.at("facts").get<std::vector<std::pair<std::string, std::string>>>();
    v.broader = j.at("broader").get<std::vector<std::string>>();
    v.tail = cites_from(j.at("tail"));
    const auto& lc = j.at("loss_curve");
    v.loss_curve.key = lc.at(0).get<std::string>();
    v.loss_curve.total = lc.at(1).get<std::uint64_t>();
    for (const auto& p : lc.at(2))
      v.loss_curve.points.push_back({p.at(0).get<std::uint64_t>(), p.at(1).get<std::uint64_t>(),
                                     p.at(2).is_null() ? std::nan("") : p.at(2).get<double>()});
    return v;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace gpualert::classify
