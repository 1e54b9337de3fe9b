#include "gpualert/config/live_choice.hpp"

namespace gpualert::config {

std::string why_no_live_alerts(const Settings& s) {
  if (!s.live) return "live alerts are off (live = no)";
  if (s.notify == "none" && s.notify_floor == "none") return "notify = none: no live alerts either";
  return {};
}

}  // namespace gpualert::config
