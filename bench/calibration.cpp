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

std::vector<std::pair<double, double>> fit_isotonic(std::vector<std::pair<double, bool>> samples, std::size_t min_group,
                                                    double lo, double hi) {
  struct Block {
    double raw_sum = 0, correct = 0, n = 0;
  };
  std::sort(samples.begin(), samples.end());
  // Groups of equal raw confidence, merged forward until each holds MIN_GROUP verdicts.
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < samples.size();) {
    Block b;
    const double raw = samples[i].first;
    for (; i < samples.size() && (samples[i].first == raw || b.n < double(min_group)); ++i) {
      b.raw_sum += samples[i].first;
      b.correct += samples[i].second ? 1 : 0;
      b.n += 1;
    }
    blocks.push_back(b);
  }
  if (blocks.size() > 1 && blocks.back().n < double(min_group)) {  // a short last group joins the one before
    Block last = blocks.back();
    blocks.pop_back();
    blocks.back().raw_sum += last.raw_sum;
    blocks.back().correct += last.correct;
    blocks.back().n += last.n;
  }
  // Pool adjacent violators: a block less accurate than the one before merges with it.
  std::vector<Block> pooled;
  for (const Block& b : blocks) {
    pooled.push_back(b);
    while (pooled.size() >= 2) {
      const Block& y = pooled[pooled.size() - 1];
      const Block& x = pooled[pooled.size() - 2];
      if (x.correct / x.n <= y.correct / y.n) break;
      Block m{x.raw_sum + y.raw_sum, x.correct + y.correct, x.n + y.n};
      pooled.pop_back();
      pooled.back() = m;
    }
  }
  std::vector<std::pair<double, double>> out;
  for (const Block& b : pooled) {
    const double raw = std::round(b.raw_sum / b.n * 1000) / 1000;
    const double cal = std::round(std::clamp(b.correct / b.n, lo, hi) * 1000) / 1000;
    if (!out.empty() && raw <= out.back().first) continue;
    out.emplace_back(raw, std::max(cal, out.empty() ? cal : out.back().second));
  }
  return out;
}

}  // namespace gpualert::bench
