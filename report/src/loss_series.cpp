// Chooses the x axis and the mark for a verdict's loss curve. Steps are used only
// when nearly every value came with one and they never go back (a per-epoch step
// counter that restarts would fold the curve onto itself).
#include "gpualert/report/loss_series.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpualert::report {
namespace {

bool steps_usable(const std::vector<classify::CurvePoint>& pts) {
  std::size_t with = 0;
  std::uint64_t prev = 0;
  for (const auto& p : pts) {
    if (!p.step) continue;
    if (p.step < prev) return false;
    prev = p.step;
    ++with;
  }
  return with * 10 >= pts.size() * 9;
}

}  // namespace

std::string loss_value_text(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.3g", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

bool wants_log_scale(double lo, double hi) { return lo > 0 && hi / lo > 100; }

std::optional<LossSeries> loss_series(const classify::Verdict& v) {
  const auto& pts = v.loss_curve.points;
  if (pts.size() < 3) return std::nullopt;
  LossSeries s;
  s.key = v.loss_curve.key.empty() ? "loss" : v.loss_curve.key;
  s.total = v.loss_curve.total;
  s.by_step = steps_usable(pts);
  double last_x = 0;
  for (const auto& p : pts) {
    double x = static_cast<double>(p.line);
    if (s.by_step) {
      if (!p.step && std::isfinite(p.value)) continue;  // a value without its step has no place on this axis
      x = p.step ? static_cast<double>(p.step) : last_x;
    }
    last_x = x;
    s.x_end = std::max(s.x_end, x);
    if (std::isfinite(p.value)) s.finite.push_back({x, p.value, p.line});
    else if (!s.first_nonfinite) s.first_nonfinite = XY{x, 0, p.line};
  }
  if (s.finite.size() < 2 && !s.first_nonfinite) return std::nullopt;
  // The point the verdict is about.
  if (v.cls == "nan_loss" && s.first_nonfinite) {
    s.mark = s.first_nonfinite;
    s.mark_label = "first non-finite loss";
  } else if (v.cls == "divergence" && !s.finite.empty()) {
    const auto low = std::min_element(s.finite.begin(), s.finite.end(), [](const XY& a, const XY& b) { return a.y < b.y; });
    if (low + 1 != s.finite.end()) {
      s.mark = *low;
      s.mark_label = "lowest loss, then rising";
    }
  } else if ((v.cls == "hang" || v.cls == "timeout") && !s.finite.empty()) {
    s.mark = s.finite.back();
    s.mark_label = "last loss printed";
  }
  return s;
}

std::string point_name(const LossSeries& s, const XY& p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %llu", s.by_step ? "step" : "line",
                static_cast<unsigned long long>(s.by_step ? static_cast<std::uint64_t>(p.x) : p.line));
  return buf;
}

std::string sparkline(const LossSeries& s) {
  static const char* const kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string out = s.key + " ";
  if (!s.finite.empty()) {
    // At most 24 buckets, each the mean of its values: enough to show the shape on one line.
    const std::size_t n = std::min<std::size_t>(24, s.finite.size());
    std::vector<double> b(n, 0.0);
    std::vector<int> c(n, 0);
    for (std::size_t i = 0; i < s.finite.size(); ++i) {
      const std::size_t k = i * n / s.finite.size();
      b[k] += s.finite[i].y;
      ++c[k];
    }
    for (std::size_t k = 0; k < n; ++k) b[k] /= std::max(1, c[k]);
    const bool logy = wants_log_scale(*std::min_element(b.begin(), b.end()), *std::max_element(b.begin(), b.end()));
    auto f = [&](double y) { return logy ? std::log10(y) : y; };
    const double lo = f(*std::min_element(b.begin(), b.end())), hi = f(*std::max_element(b.begin(), b.end()));
    for (double y : b) {
      const int level = hi > lo ? static_cast<int>(std::lround((f(y) - lo) / (hi - lo) * 7)) : 3;
      out += kBars[std::clamp(level, 0, 7)];
    }
    out += " " + loss_value_text(s.finite.front().y) + " (" + point_name(s, s.finite.front()) + ") → " +
           loss_value_text(s.finite.back().y) + " (" + point_name(s, s.finite.back()) + ")";
    if (logy) out += ", log scale";
  }
  if (s.first_nonfinite) out += (s.finite.empty() ? "" : "; ") + std::string("not finite from ") + point_name(s, *s.first_nonfinite);
  return out;
}

}  // namespace gpualert::report
