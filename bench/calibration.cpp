#include "calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpualert::bench {

Calibration::Calibration(std::size_t bands) {
  for (std::size_t i = 0; i < bands; ++i)
    bands_.push_back(Band{double(i) / double(bands), double(i + 1) / double(bands), 0, 0, 0});
}

void Calibration::add(double confidence, bool correct) {
  const double c = std::clamp(confidence, 0.0, 1.0);
  auto i = static_cast<std::size_t>(c * double(bands_.size()));
  if (i >= bands_.size()) i = bands_.size() - 1;  // 1.0 belongs to the top band
  Band& b = bands_[i];
  ++b.n;
  b.correct += correct ? 1 : 0;
  b.confidence_sum += c;
  ++n_;
}

double Calibration::expected_error() const {
  if (!n_) return 0;
  double e = 0;
  for (const Band& b : bands_)
    if (b.n) e += std::fabs(b.accuracy() - b.mean_confidence()) * double(b.n) / double(n_);
  return e;
}

std::string Calibration::table() const {
  std::string out = "  confidence    n   mean conf  accuracy\n";
  char row[96];
  for (const Band& b : bands_) {
    if (!b.n) {
      std::snprintf(row, sizeof row, "  %.1f-%.1f  %5zu          -         -\n", b.lo, b.hi, b.n);
    } else {
      std::snprintf(row, sizeof row, "  %.1f-%.1f  %5zu      %.3f     %.3f\n", b.lo, b.hi, b.n, b.mean_confidence(),
                    b.accuracy());
    }
    out += row;
  }
  std::snprintf(row, sizeof row, "  expected calibration error (ECE): %.3f over %zu verdicts\n", expected_error(), n_);
  return out + row;
}

nlohmann::json Calibration::to_json() const {
  nlohmann::json j;
  j["ece"] = expected_error();
  j["n"] = n_;
  j["bands"] = nlohmann::json::array();
  for (const Band& b : bands_)
    j["bands"].push_back({{"lo", b.lo}, {"hi", b.hi}, {"n", b.n}, {"mean_confidence", b.mean_confidence()},
                          {"accuracy", b.accuracy()}});
  return j;
}

}  // namespace gpualert::bench
