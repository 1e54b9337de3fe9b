#pragma once
// A class together with the evidence behind it, and how two of them compare.
#include <cstdint>
#include <string>
#include <vector>

#include "gpualert/classifier/verdict.hpp"
#include "../log_scanner.hpp"

namespace gpualert::classify::detail {

constexpr int kConcrete = 50;       // a cause at least this specific beats a scheduler disposition before it
constexpr int kNodeFailBeats = 60;  // node failure makes NCCL/peer errors consequences
constexpr int kGenericMax = 39;     // runtime_error / traceback / signal_kill and below

struct Cand {
  std::string cls;
  int priority = 0;
  std::uint64_t line = 0;   // 0 = not from a log line (exit status, scheduler state)
  const Hit* hit = nullptr;  // the deciding hit, if any
  std::string claim;         // what it shows
  std::string source;        // "log", "exit status", "scheduler state", "loss", "kernel log", "launcher"
  std::vector<const Hit*> support;  // other hits of the same class
  std::uint64_t count = 0;
  int rules = 0;  // distinct rules of this class that matched
  std::vector<Citation> cites;  // records from outside the log (kernel events)
  bool suspected = false;       // a reading by elimination, not a direct record
};

// More specific first; at the same specificity the earliest line is the root cause.
inline bool better(const Cand& a, const Cand& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  const auto la = a.line ? a.line : UINT64_MAX;
  const auto lb = b.line ? b.line : UINT64_MAX;
  return la < lb;
}

}  // namespace gpualert::classify::detail
