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

// Whose move, as every rendering shows it: a label and its colours.
struct Move {
  const char* label;   // "Your job's move"
  const char* colour;  // white text on it is readable
  const char* tint;    // a background dark text is readable on
};
Move whose_move(const std::string& attribution);

}  // namespace gpualert::report::words
