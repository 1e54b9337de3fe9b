#pragma once
// Facts about the invoking user and host that the defaults are made from.
#include <filesystem>
#include <string>

namespace gpualert::config {

std::string current_user();
std::string host_name();
std::filesystem::path home_dir();
// $VAR when it is an absolute path, else ~/FALLBACK (e.g. ".local/state").
std::filesystem::path xdg_dir(const char* var, const char* fallback_under_home);

}  // namespace gpualert::config
