#pragma once
// Starts gpualert-epilog fully detached from the hook: slurmd never waits for it,
// so a slow relay can never keep a node in COMPLETING or a job from starting.
#include <cstdint>
#include <string>
#include <sys/types.h>

#include "option_value.hpp"
#include "gpualert/config/plugstack_args.hpp"

namespace gpualert::spank {

// job_epilog: the helper that diagnoses the finished job and sends its message.
void launch_helper(const config::PluginArgs& args, const OptionValue& option);

// job_prolog: the helper's live mode, watching the job on NODE until its epilog.
void launch_live_watcher(const config::PluginArgs& args, const OptionValue& option, std::uint32_t job, uid_t uid,
                         const std::string& node);

}  // namespace gpualert::spank
