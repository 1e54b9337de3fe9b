#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gpualert/config/loader.hpp"

namespace gpualert::cli {

// Settings given as flags, applied over files and environment: (key, value, flag name).
using FlagSettings = std::vector<std::tuple<std::string, std::string, std::string>>;

// Every layer (built-in defaults, files, GPUALERT_* variables), then FLAGS on top.
inline config::Loader load_settings(const std::optional<std::filesystem::path>& config_file, const FlagSettings& flags) {
  config::Loader loader = config::load_layers(config_file);
  for (const auto& [key, value, flag] : flags) loader.apply_value(key, value, flag);
  return loader;
}

}  // namespace gpualert::cli
