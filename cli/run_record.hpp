#pragma once
// run.json: the facts of a run, written before the child starts and again when it ends.
#include <nlohmann/json.hpp>

#include "gpualert/report/run_facts.hpp"

namespace gpualert::cli {

nlohmann::json run_record(const report::RunFacts& f, bool finished, const std::string& log_error);

}  // namespace gpualert::cli
