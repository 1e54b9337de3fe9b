// One rank persistently slower than its peers (per-rank compute or step times).
#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {
namespace {

using RankTimes = std::vector<std::pair<std::string, double>>;

// The slowest entry when it is at least RATIO times the median of the others.
std::optional<std::size_t> outlier(const RankTimes& v, double ratio) {
  if (v.size() < 2) return std::nullopt;
  std::size_t hi = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].second > v[hi].second) hi = i;
  std::vector<double> others;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i != hi) others.push_back(v[i].second);
  std::sort(others.begin(), others.end());
  const double med = others[others.size() / 2];
  if (med > 0 && v[hi].second >= ratio * med) return hi;
  return std::nullopt;
}

}  // namespace

bool check_straggler(FinishedRun& r) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  if (P.ranks.size() < 2) return false;
  const auto mean_of = [](double s, std::uint64_t n) { return n ? s / static_cast<double>(n) : -1.0; };
  RankTimes compute, wait, step;
  for (const auto& [rank, t] : P.ranks) {
    if (t.compute_n) compute.emplace_back(rank, mean_of(t.compute_sum, t.compute_n));
    if (t.wait_n) wait.emplace_back(rank, mean_of(t.wait_sum, t.wait_n));
    if (t.step_n) step.emplace_back(rank, mean_of(t.step_sum, t.step_n));
  }
  std::optional<std::string> slow;
  std::string how;
  if (auto i = outlier(compute, 1.5)) {
    slow = compute[*i].first;
    how = "its compute time per step is " + fmt(compute[*i].second * 1000) + " ms, well above its peers'";
  } else if (auto j = outlier(step, 1.3)) {
    slow = step[*j].first;
    how = "its step time is " + fmt(step[*j].second * 1000) + " ms, well above its peers'";
  }
  if (!slow) return false;
  const auto& t = P.ranks.at(*slow);
  std::string digits;
  for (char c : *slow)
    if (std::isdigit(static_cast<unsigned char>(c))) digits.push_back(c);
  const std::string rank = digits.empty() ? *slow : digits;
  r.facts.emplace_back("rank", rank);
  d.v.evidence.push_back(Citation{t.line, t.text, "progress.rank_timing"});
  d.v.shows.push_back("rank " + rank + ": " + how + " (" + std::to_string(P.ranks.size()) + " ranks compared)");
  if (!wait.empty()) d.v.shows.push_back("the other ranks spend their time waiting in the collective for it");
  return r.decide("straggler", 0.65);
}

}  // namespace gpualert::classify::detail
