#pragma once
// Where gpualert's own helper programs live: beside the running program (the build
// tree keeps every program in one bin/), else <prefix>/libexec/gpualert/ wherever the
// prefix was moved, else LIBEXECDIR/gpualert (the configured install location).
#include <filesystem>
#include <string>

namespace gpualert {

std::filesystem::path helper_program(const std::string& name, const std::string& libexecdir);

}  // namespace gpualert
