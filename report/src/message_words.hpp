#pragma once
// Phrases the text and the HTML message share, so both always say the same thing.
#include <string>
#include <vector>

#include "gpualert/report/run_facts.hpp"

namespace gpualert::report::words {

std::string status_only(const RunFacts& f);    // "exit 3", "SIGKILL", "could not start"
std::string status_detail(const RunFacts& f);  // "exit 3, 2h13m"
std::string who_acts(const std::string& attribution);
std::string confidence_text(double c);         // "0.80"
std::string command_line(const std::vector<std::string>& cmd);
std::string exit_status_text(const RunFacts& f);  // "exited with status 1", "could not be started"

}  // namespace gpualert::report::words
