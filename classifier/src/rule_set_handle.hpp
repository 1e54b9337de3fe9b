#pragma once
// The opaque public handle (classify::RuleSet) around the compiled rules, for the
// translation units that need its inside.
#include <memory>

#include "rule_set.hpp"

namespace gpualert::classify {

class RuleSet {
 public:
  explicit RuleSet(std::shared_ptr<const detail::RuleSet> p) : impl(std::move(p)) {}
  std::shared_ptr<const detail::RuleSet> impl;
};

}  // namespace gpualert::classify
