#include "accuracy_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "re2/re2.h"

namespace gpualert::classify::detail {
namespace {

// "acc: 0.5", "val_acc=0.5", "test accuracy 91.2%", "'eval_accuracy': 0.5", "Acc@1 76.1".
const RE2& metric_re() {
  static const RE2 re(
      R"((?i)(?:^|[^\w])((?:best[ _]?)?(?:(?:train(?:ing)?|val(?:id(?:ation)?)?|test|eval)[ _/]?)?acc(?:uracy)?(?:@1)?)['"]?\s*[:=]?\s*([0-9]+(?:\.[0-9]+)?)\s*(%?))");
  return re;
}

}  // namespace

void AccuracyTracker::feed(std::string_view text, std::uint64_t line) {
  re2::StringPiece in(text.data(), text.size());
  std::string name, num, pct;
  while (RE2::FindAndConsume(&in, metric_re(), &name, &num, &pct)) {
    double v = std::strtod(num.c_str(), nullptr);
    if (!pct.empty() || v > 1.0) v /= 100.0;
    if (!(v >= 0 && v <= 1.0)) continue;
    best_ = std::max(best_, v);
    std::string key;
    for (char c : name) key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (key.rfind("best", 0) == 0) continue;  // a running maximum, not an evaluation
    auto it = std::find_if(metrics_.begin(), metrics_.end(), [&](const Metric& m) { return m.name == key; });
    if (it == metrics_.end()) {
      if (metrics_.size() >= kMaxMetrics) continue;
      metrics_.push_back(Metric{key, -1, 0, 0, 0});
      it = metrics_.end() - 1;
    }
    if (it->run && std::fabs(v - it->last) <= 5e-4) {
      ++it->run;
    } else {
      it->run = 1;
      it->run_from = line;
    }
    it->last = v;
    it->last_line = line;
  }
}

std::optional<AccuracyTracker::AtChance> AccuracyTracker::at_chance() const {
  std::optional<AtChance> out;
  for (const Metric& m : metrics_) {
    if (m.run < 5 || m.last <= 0) continue;
    const int k = static_cast<int>(std::lround(1.0 / m.last));
    if (k < 2 || k > 1000 || std::fabs(m.last - 1.0 / k) > 1e-3) continue;
    const bool had_learned = best_ >= m.last + 0.1;
    if (!had_learned && m.run < 8) continue;
    if (out && out->evaluations >= m.run) continue;
    out = AtChance{m.name, m.last, k, m.run, m.run_from, m.last_line, had_learned ? best_ : -1};
  }
  return out;
}

}  // namespace gpualert::classify::detail
