#pragma once
// Small formatting helpers shared by the analyzers.
#include <string>

namespace gpualert::classify::detail {

std::string fmt(double v);  // "%.4g"
// The rank a launcher's line prefix names ("[rank3]: ", "3: ", "[default3]:"), or "".
std::string rank_of(const std::string& line);
// Seconds as "4h00m" / "2m05s".
std::string duration_text(double seconds);

}  // namespace gpualert::classify::detail
