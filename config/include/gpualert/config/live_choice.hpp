#pragma once
// Whether live alerts are sent while a run holds its GPUs: live = yes, and the user did
// not ask for no message at all (notify = none, with no site floor raising it).
#include <string>

#include "gpualert/config/settings.hpp"

namespace gpualert::config {

// Empty when live alerts go out; otherwise why not, for the log.
std::string why_no_live_alerts(const Settings& s);

}  // namespace gpualert::config
