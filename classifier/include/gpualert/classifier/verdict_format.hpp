#pragma once
// Renderings of a verdict: JSON (the machine contract) and readable text.
#include <string>

#include <nlohmann/json.hpp>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::classify {

// Keys: class, family, attribution, confidence, shows, implies, cannot_decide,
// remedy, evidence [{line, text, rule}], secondary [{class, summary, confidence,
// evidence}], lines_read, bytes_read, partial_scan.
nlohmann::json to_json(const Verdict& v);

// A screen of text: headline, then shows / implies / cannot decide / remedy.
std::string to_text(const Verdict& v);

}  // namespace gpualert::classify
