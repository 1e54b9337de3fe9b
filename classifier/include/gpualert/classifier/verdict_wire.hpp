#pragma once
// A lossless rendering of a verdict for handing it from one process to another
// (the epilog helper classifies in a child that has become the job's user).
// Unlike to_json (the public contract) it keeps every field exactly.
#include <optional>
#include <string>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::classify {

std::string verdict_to_wire(const Verdict& v);
// nullopt for text that is not a complete verdict.
std::optional<Verdict> verdict_from_wire(const std::string& text);

}  // namespace gpualert::classify
