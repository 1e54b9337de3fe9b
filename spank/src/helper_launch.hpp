#pragma once
// Starts gpualert-epilog fully detached from the epilog: slurmd never waits for
// it, so a slow relay can never keep a node in COMPLETING.
#include "option_value.hpp"
#include "gpualert/config/plugstack_args.hpp"

namespace gpualert::spank {

void launch_helper(const config::PluginArgs& args, const OptionValue& option);

}  // namespace gpualert::spank
