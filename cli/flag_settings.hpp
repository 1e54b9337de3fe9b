#pragma once
#include <string>
#include <tuple>
#include <vector>

namespace gpualert::cli {

// Settings given as flags, applied over files and environment: (key, value, flag name).
using FlagSettings = std::vector<std::tuple<std::string, std::string, std::string>>;

}  // namespace gpualert::cli
