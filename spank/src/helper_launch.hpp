#pragma once
// Starts gpualert-epilog fully detached from the epilog: slurmd never waits for
// it, so a slow relay can never keep a node in COMPLETING.
#include "option_value.hpp"
#include "plugin_args.hpp"

namespace gpualert::spank {

void launch_helper(const PluginArgs& args, const OptionValue& option);

}  // namespace gpualert::spank
