#pragma once
// The value of --gpualert[=VALUE], as typed by a user: hostile until checked.
#include <optional>
#include <string>
#include <vector>

namespace gpualert::spank {

struct OptionValue {
  bool given = false;             // the option appeared at all
  bool off = false;               // --gpualert=off (opt out where default=on)
  std::vector<std::string> to;    // explicit recipients; empty = the job's --mail-user or the user's default
};

// NULL, "" and the literal "(null)" all mean "no argument" (Slurm hands over
// each of them depending on the context). Returns nullopt with WHY for a value
// that is neither on/off nor a list of mail addresses.
std::optional<OptionValue> parse_option_value(const char* raw, std::string& why);

}  // namespace gpualert::spank
