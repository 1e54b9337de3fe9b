#pragma once
// A FleetSummary for people (text), for dashboards (JSON, CSV). WINDOW names the
// period and filters the summary covers, as the command line gave them.
#include <string>

#include "gpualert/fleet/fleet_summary.hpp"

namespace gpualert::fleet {

std::string report_text(const FleetSummary& s, const std::string& window);
std::string report_json(const FleetSummary& s, const std::string& window);
// One table: section,name,detail,jobs,gpu_hours,share (RFC 4180 quoting).
std::string report_csv(const FleetSummary& s);

}  // namespace gpualert::fleet
