#pragma once
// Evidence + exit status + scheduler state -> one verdict.
#include "gpualert/classifier/verdict.hpp"
#include "log_scanner.hpp"
#include "rule_set.hpp"

namespace gpualert::classify::detail {

Verdict decide(const RuleSet& rules, const ScanResult& scan, const RunStatus& status);

}  // namespace gpualert::classify::detail
