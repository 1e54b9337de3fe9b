#pragma once
// Accuracy metrics read from progress lines ("train acc: 0.50", "val_accuracy=91.2%"),
// for the one verdict they give that the loss may not: a classifier whose accuracy sits
// exactly at chance (1/K) evaluation after evaluation, as a collapsed model's does while
// its loss still swings. Bounded memory: a few metrics, each its newest values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::classify::detail {

class AccuracyTracker {
 public:
  void feed(std::string_view line_text, std::uint64_t line);

  struct AtChance {
    std::string metric;  // as printed ("val acc")
    double value = 0;    // a fraction
    int classes = 0;     // K, the value being 1/K
    unsigned evaluations = 0;  // how many values in a row, the newest included
    std::uint64_t from_line = 0, to_line = 0;
    double best = -1;    // the best accuracy the log printed (any metric), -1 if none above chance
  };
  // The metric that ends the log pinned at chance, if any: five values in a row at 1/K
  // after the run had been well above it, or eight in a row whatever came before.
  std::optional<AtChance> at_chance() const;

  static constexpr std::size_t kMaxMetrics = 8;

 private:
  struct Metric {
    std::string name;
    double last = -1;
    unsigned run = 0;  // values in a row equal to LAST
    std::uint64_t run_from = 0, last_line = 0;
  };
  std::vector<Metric> metrics_;
  double best_ = -1;
};

}  // namespace gpualert::classify::detail
