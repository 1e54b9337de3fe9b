#pragma once
// Reliability of the classifier's confidence: accuracy per confidence band and the
// expected calibration error (ECE), so "0.8" can be checked to mean "right 8 times in 10".
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpualert::bench {

struct Band {
  double lo = 0, hi = 0;
  std::size_t n = 0, correct = 0;
  double confidence_sum = 0;
  double accuracy() const { return n ? double(correct) / double(n) : 0; }
  double mean_confidence() const { return n ? confidence_sum / double(n) : 0; }
};

class Calibration {
 public:
  explicit Calibration(std::size_t bands = 5);
  void add(double confidence, bool correct);
  const std::vector<Band>& bands() const { return bands_; }
  std::size_t count() const { return n_; }
  // Sum over bands of |accuracy - mean confidence|, weighted by the band's share.
  double expected_error() const;
  std::string table() const;
  nlohmann::json to_json() const;

 private:
  std::vector<Band> bands_;
  std::size_t n_ = 0;
};

// A monotone map from raw confidence to observed accuracy (isotonic regression by pool
// adjacent violators over groups of at least MIN_GROUP verdicts), as [raw, calibrated]
// points for a rule file's "calibration"; calibrated values are kept within [lo, hi].
std::vector<std::pair<double, double>> fit_isotonic(std::vector<std::pair<double, bool>> samples, std::size_t min_group,
                                                    double lo, double hi);

}  // namespace gpualert::bench
