#include "loss_tracker.hpp"

#include <cstring>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace gpualert::classify::detail {
namespace {

std::string normalise_key(std::string_view k) {
  // nanoGPT-style "train loss" at evaluation points and "loss" every step are one series;
  // HF's summary 'train_loss' (a mean over the whole run) is not a point of it.
  for (std::string_view p : {"train ", "training ", "Train ", "Training "})
    if (k.size() > p.size() && k.substr(0, p.size()) == p) k.remove_prefix(p.size());
  // A loss named by its split alone ("step 100 | train 2.59 | val 2.60", CatBoost's
  // "learn: 0.51") is the same series.
  if (k == "train" || k == "training" || k == "Train" || k == "Training" || k == "learn") return "loss";
  std::string out;
  for (char c : k) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(c == ' ' || c == '/' || c == '-' ? '_' : static_cast<char>(std::tolower(u)));
  }
  // The word for loss in the language the program prints (Romanian, Spanish, French,
  // German, Portuguese, Italian) names the same series.
  for (std::string_view w : {"pierdere", "perdida", "perte", "verlust", "perda", "perdita"})
    if (out == w) return "loss";
  return out;
}

// Validation / evaluation losses are not the training trajectory: named so first
// ("val_loss"), or down a metric path ("loss/eval/total" from "loss/eval/total").
bool is_eval_key(const std::string& k) {
  const auto us = k.find('_');
  const std::string first = us == std::string::npos ? "" : k.substr(0, us);
  static const char* const kEval[] = {"val", "valid", "validation", "eval", "evaluation", "test", "dev", "best", "min", "avg_val"};
  for (const char* e : kEval)
    if (first == e) return true;
  if (k.rfind("loss_", 0) == 0)
    for (const char* e : {"_val", "_valid", "_validation", "_eval", "_evaluation", "_test"}) {
      const std::size_t at = k.find(e, 4);
      if (at != std::string::npos && (at + std::strlen(e) == k.size() || k[at + std::strlen(e)] == '_')) return true;
    }
  return false;
}

// The median of a window: one spike in the first or last values does not move it.
double mean(const std::vector<LossPoint>& v, std::size_t from, std::size_t to) {
  std::vector<double> w;
  for (std::size_t i = from; i < to; ++i) w.push_back(v[i].value);
  std::sort(w.begin(), w.end());
  const std::size_t m = w.size() / 2;
  return w.size() % 2 ? w[m] : (w[m - 1] + w[m]) / 2;
}

// How far the medians of two windows of Q values may differ by scatter alone: twice the
// standard error of their difference, the scatter read robustly (median absolute
// deviation) from the noisier window. A rise smaller than that is noise, not a trend.
double noise_of_medians(const std::vector<LossPoint>& v, std::size_t q) {
  auto mad = [&](std::size_t from, std::size_t to) {
    const double m = mean(v, from, to);
    std::vector<LossPoint> dev;
    for (std::size_t i = from; i < to; ++i) dev.push_back(LossPoint{v[i].line, std::fabs(v[i].value - m)});
    return mean(dev, 0, dev.size());
  };
  const double sd = 1.4826 * std::max(mad(0, q), mad(v.size() - q, v.size()));
  return 2.0 * 1.25 * sd * std::sqrt(2.0 / static_cast<double>(q));
}

// Settings a configuration dump prints beside the real loss: mixed precision's loss
// scaling ("scale_loss :32768", PaddleNLP), "use_loss", "init_loss" are no loss values.
bool is_setting_key(const std::string& k) {
  for (const char* s : {"scale_loss", "dynamic_loss", "static_loss", "init_loss", "initial_loss", "use_loss"})
    if (k == s) return true;
  // A loss named by a word after it ("Loss Discriminator", "Loss_G") is a loss; these
  // words name one of its settings instead ("loss scale: 65536", "Loss Weight: 0.5").
  for (const char* s : {"_scale", "_weight", "_weights", "_type", "_fn", "_function", "_ratio", "_factor", "_mode",
                        "_coef", "_coeff", "_name", "_cap", "_clip", "_window", "_interval"})
    if (k.size() > 4 + std::strlen(s) && k.rfind("loss", 0) == 0 && k.compare(k.size() - std::strlen(s), std::string::npos, s) == 0)
      return true;
  return false;
}

}  // namespace

bool LossTracker::add(std::string_view key, std::string_view value, std::uint64_t line) {
  const std::string k = normalise_key(key);
  if (is_setting_key(k)) return false;
  if (is_eval_key(k)) {
    // Not the training trajectory, but a NaN evaluation loss is a broken model all the same.
    const std::string v(value);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (end != v.c_str() && !std::isfinite(d)) {
      if (!eval_nonfinite_) eval_nonfinite_line_ = line;
      ++eval_nonfinite_;
      if (eval_key_.empty()) eval_key_ = k;
    }
    return false;
  }
  if (key_.empty()) {
    key_ = k;
    std::string lower(key.substr(0, std::min<std::size_t>(key.size(), 5)));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    named_train_ = lower == "train";
  }
  if (k != key_) return false;
  const std::string v(value);
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str()) return false;
  ++count_;
  ++run_count_;
  sample(line, d);
  if (!std::isfinite(d)) {
    ++nonfinite_;
    if (!first_nonfinite_line_) first_nonfinite_line_ = line;
    if (!last_nonfinite_) streak_start_ = line;
    last_nonfinite_ = true;
    return true;
  }
  last_nonfinite_ = false;
  ++finite_;
  const LossPoint p{line, d};
  const auto prev = last();
  if (prev && prev->value == d) {
    if (prev->line != line) ++repeats_;  // one line may show a value twice (a progress bar's redraws)
  } else {
    repeats_ = 1;
    if (d == 0.0) {
      zero_from_ = line;
      before_zero_ = prev ? *prev : LossPoint{};
    }
  }
  if (d != 0.0) zero_from_ = 0;
  if (head_.size() < kKeep) {
    head_.push_back(p);
  } else {
    tail_.push_back(p);
    if (tail_.size() > kKeep) tail_.pop_front();
  }
  return true;
}

// Keeps every stride-th value; when full, every other kept value goes and the stride
// doubles, so the sample stays evenly spaced over the whole run in bounded memory.
// A non-finite value is always kept while it is the first of its streak: the chart must show it.
void LossTracker::sample(std::uint64_t line, double value) {
  newest_ = {line, 0, value};
  if (std::isfinite(value)) newest_finite_ = newest_;
  const bool first_bad = !std::isfinite(value) && !last_nonfinite_;
  if (seen_++ % stride_ != 0 && !first_bad) return;
  if (overview_.size() >= kOverview) {
    std::vector<CurvePoint> half;
    for (std::size_t i = 0; i < overview_.size(); ++i) {
      const bool streak_start = !std::isfinite(overview_[i].value) && (i == 0 || std::isfinite(overview_[i - 1].value));
      if (i % 2 == 0 || streak_start) half.push_back(overview_[i]);
    }
    overview_ = std::move(half);
    stride_ *= 2;
  }
  overview_.push_back({line, 0, value});
}

void LossTracker::step_of_last(std::uint64_t line, std::uint64_t step) {
  if (!overview_.empty() && overview_.back().line == line) overview_.back().step = step;
  if (newest_.line == line) newest_.step = step;
  if (newest_finite_.line == line) newest_finite_.step = step;
}

std::vector<CurvePoint> LossTracker::overview() const {
  std::vector<CurvePoint> out = overview_;
  // The newest finite value and the newest value belong in the picture, whatever the thinning kept.
  for (const CurvePoint* p : {&newest_finite_, &newest_}) {
    if (out.empty() || p->line == 0) continue;
    const auto at = std::lower_bound(out.begin(), out.end(), p->line,
                                     [](const CurvePoint& c, std::uint64_t l) { return c.line < l; });
    if (at == out.end() || at->line != p->line) out.insert(at, *p);
  }
  return out;
}

void LossTracker::restart(std::uint64_t line) {
  // The values printed on LINE itself belong to the new run.
  std::vector<LossPoint> keep;
  for (const auto& p : head_)
    if (p.line >= line) keep.push_back(p);
  for (const auto& p : tail_)
    if (p.line >= line) keep.push_back(p);
  head_ = keep;
  tail_.clear();
  ++restarts_;
  run_start_line_ = line;
  run_count_ = keep.size();
  repeats_ = keep.empty() ? 0 : 1;
}

LossTracker::TrendInfo LossTracker::trend() const {
  TrendInfo t;
  std::vector<LossPoint> all = head_;
  all.insert(all.end(), tail_.begin(), tail_.end());
  if (all.empty()) return t;
  if (all.size() < 4) {
    t.trend = Trend::too_few;
    t.start = all.front().value;
    t.end = all.back().value;
    t.start_line = t.start_to = all.front().line;
    t.end_line = t.end_from = all.back().line;
    return t;
  }
  // Compare the mean of the first quarter with the mean of the last quarter (of the kept
  // points): robust to per-step noise, cheap, and needs no step numbers.
  const std::size_t q = std::max<std::size_t>(1, std::min<std::size_t>(16, all.size() / 4));
  t.start = mean(all, 0, q);
  t.end = mean(all, all.size() - q, all.size());
  t.start_line = all.front().line;
  t.start_to = all[q - 1].line;
  t.end_line = all.back().line;
  t.end_from = all[all.size() - q].line;
  t.window = q;
  // A loss that crosses zero (a policy-gradient or other surrogate objective) has no
  // natural scale: its change is measured against its own range, not its start.
  double lo = all.front().value, hi = lo;
  for (const auto& p : all) {
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  const double scale = std::max(lo < 0 && hi > 0 ? hi - lo : std::fabs(t.start), 1e-9);
  const double rel = (t.end - t.start) / scale;
  if (rel <= -0.02) t.trend = Trend::down;
  else if (rel >= 0.05 && t.end - t.start > noise_of_medians(all, q)) t.trend = Trend::up;
  else t.trend = Trend::flat;
  return t;
}

std::optional<LossTracker::Unrecovered> LossTracker::spike_unrecovered() const {
  // The whole run's picture (evenly thinned): the low may lie in a middle the head and
  // tail do not keep.
  std::vector<LossPoint> pts;
  for (const CurvePoint& c : overview())
    if (std::isfinite(c.value)) pts.push_back(LossPoint{c.line, c.value});
  if (pts.size() < 24) return std::nullopt;
  std::vector<double> smooth;  // medians of 5: single spikes move nothing
  for (std::size_t i = 2; i + 2 < pts.size(); ++i) smooth.push_back(mean(pts, i - 2, i + 3));
  const auto low = static_cast<std::size_t>(std::min_element(smooth.begin(), smooth.end()) - smooth.begin());
  const std::size_t after = smooth.size() - 1 - low;
  if (after < 12 || smooth[low] <= 0) return std::nullopt;
  const auto peak = static_cast<std::size_t>(std::max_element(smooth.begin() + static_cast<std::ptrdiff_t>(low), smooth.end()) -
                                             smooth.begin());
  // What the run had learned before its low: the spike must undo half of it, and the end
  // still a fifth (a converged loss of 0.006 that wobbles to 0.02 undid nothing).
  const double start = mean(pts, 0, std::min<std::size_t>(16, pts.size() / 4));
  const double learned = start - smooth[low];
  if (learned <= 0 || smooth[peak] < 1.3 * smooth[low] || smooth[peak] - smooth[low] < 0.5 * learned) return std::nullopt;
  // The lowest of many medians of 5 lies well below the typical one by scatter alone: a
  // loss that only scatters (a GAN's discriminator) has no low to spike from. The
  // scatter is read from neighbouring values, so a falling trend does not count as it:
  // SD from the median step (0.954 SD for independent normal scatter), a median of 5
  // scatters about 1.25 SD / sqrt(5), and the low and the end must both stand four of
  // those away.
  {
    std::vector<double> steps;
    for (std::size_t i = 1; i < pts.size(); ++i) steps.push_back(std::fabs(pts[i].value - pts[i - 1].value));
    std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2), steps.end());
    const double sd = steps[steps.size() / 2] / 0.954;
    const double floor = 4.0 * 1.25 * sd / std::sqrt(5.0);
    if (learned < floor || smooth.back() - smooth[low] < floor) return std::nullopt;
  }
  const std::size_t last_n = std::max<std::size_t>(5, after / 4);
  for (std::size_t i = smooth.size() - last_n; i < smooth.size(); ++i)
    if (i <= peak || smooth[i] < 1.12 * smooth[low] || smooth[i] - smooth[low] < 0.2 * learned) return std::nullopt;
  return Unrecovered{smooth[low], smooth[peak], smooth.back(), pts[low + 2].line, pts[peak + 2].line, pts.back().line};
}

std::optional<LossTracker::LevelJump> LossTracker::jumped_at_start() const {
  std::vector<LossPoint> pts;
  for (const CurvePoint& c : overview())
    if (std::isfinite(c.value)) pts.push_back(LossPoint{c.line, c.value});
  if (pts.size() < 24) return std::nullopt;
  for (std::size_t m = 1; m <= 3; ++m) {
    double before = 0;
    for (std::size_t i = 0; i < m; ++i) before = std::max(before, pts[i].value);
    // A logged 0.0 before the first real window (Hugging Face with accumulation) is no level.
    if (!(before >= 0.05)) return std::nullopt;
    std::vector<double> rest;
    double low = pts[m].value;
    for (std::size_t i = m; i < pts.size(); ++i) {
      rest.push_back(pts[i].value);
      low = std::min(low, pts[i].value);
    }
    if (low < 3 * before) continue;
    std::nth_element(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(rest.size() / 2), rest.end());
    const double med = rest[rest.size() / 2];
    if (med < 5 * before) continue;
    return LevelJump{before, med, pts[m - 1].line, pts[m].line, pts.back().line, pts.size() - m};
  }
  return std::nullopt;
}

std::optional<LossTracker::Zeroed> LossTracker::zeroed() const {
  if (!zero_from_ || repeats_ < 3 || !before_zero_.line || !(before_zero_.value >= 0.01)) return std::nullopt;
  return Zeroed{zero_from_, before_zero_.value, before_zero_.line, repeats_};
}

std::optional<LossPoint> LossTracker::last() const {
  if (!tail_.empty()) return tail_.back();
  if (!head_.empty()) return head_.back();
  return std::nullopt;
}

namespace {

// K when the last N values all lie within SPREAD (relative) of each other and within
// NEAR of ln K.
// The lowest and highest of the last N points (all of them when fewer).
std::pair<double, double> range_of_last(const std::vector<LossPoint>& pts, std::size_t n) {
  if (pts.empty()) return {0, 0};
  double lo = pts.back().value, hi = lo;
  for (std::size_t i = pts.size() - std::min(n, pts.size()); i < pts.size(); ++i) {
    lo = std::min(lo, pts[i].value);
    hi = std::max(hi, pts[i].value);
  }
  return {lo, hi};
}

std::optional<int> at_ln_k(const std::vector<LossPoint>& pts, std::size_t n, double spread, double near) {
  if (pts.size() < n) return std::nullopt;
  const auto [lo, hi] = range_of_last(pts, n);
  const double v = pts.back().value;
  double k = std::round(std::exp(v));
  if (!(v > 0.5 && v < 12 && hi - lo <= spread * v && std::fabs(v - std::log(k)) <= near)) return std::nullopt;
  // Past twenty classes the ln K are too close to tell K apart: name the round count
  // (1000, not 997) when the value is as near its ln as the scatter of a pinned loss.
  if (k > 20) {
    const double scale = std::pow(10.0, std::floor(std::log10(k)) - 1);
    const double round_k = std::round(k / scale) * scale;
    if (std::fabs(v - std::log(round_k)) <= 5e-3) k = round_k;
  }
  return static_cast<int>(k);
}

}  // namespace

std::optional<int> LossTracker::pinned_at_chance() const {
  std::vector<LossPoint> recent = head_;
  recent.insert(recent.end(), tail_.begin(), tail_.end());
  if (auto k = at_ln_k(recent, 8, 1e-3, 2e-3)) return k;
  // Four values, pinned tightly, after one that was elsewhere: not a fresh model's first
  // steps at its initial ln K, but a run that left it and fell back.
  if (recent.size() < 5) return std::nullopt;
  const auto k = at_ln_k(recent, 4, 2e-4, 5e-4);
  if (!k) return std::nullopt;
  const std::vector<LossPoint> before(recent.begin(), recent.end() - 4);
  const double away = std::fabs(before.back().value - std::log(*k));
  if (away <= 1e-2 * std::log(*k)) return std::nullopt;
  return k;
}

std::optional<int> LossTracker::hovering_at_chance() const {
  std::vector<LossPoint> pts = head_;
  pts.insert(pts.end(), tail_.begin(), tail_.end());
  if (finite_count() < 12 || pts.size() < 12) return std::nullopt;
  const double late = mean(pts, pts.size() - 8, pts.size()), early = mean(pts, 0, 8);  // window medians
  for (int k = 2; k <= 10; ++k) {
    const double c = std::log(k);
    if (std::fabs(late - c) > 1e-2 * c || std::fabs(early - c) > 2e-2 * c) continue;
    if (std::all_of(pts.end() - 8, pts.end(), [&](const LossPoint& p) { return std::fabs(p.value - c) <= 0.03 * c; })) return k;
  }
  return std::nullopt;
}

std::pair<double, double> LossTracker::recent_range(std::size_t n) const {
  std::vector<LossPoint> recent = head_;
  recent.insert(recent.end(), tail_.begin(), tail_.end());
  return range_of_last(recent, n);
}

std::size_t LossTracker::chance_run() const {
  std::vector<LossPoint> recent = head_;
  recent.insert(recent.end(), tail_.begin(), tail_.end());
  return at_ln_k(recent, 8, 1e-3, 2e-3) ? 8 : pinned_at_chance() ? 4 : hovering_at_chance() ? 8 : 0;
}

std::optional<LossTracker::LateRise> LossTracker::late_rise() const {
  // The newest values kept: the tail once there is one, else everything.
  std::vector<LossPoint> pts;
  if (tail_.size() >= 16) pts.assign(tail_.begin(), tail_.end());
  else {
    pts = head_;
    pts.insert(pts.end(), tail_.begin(), tail_.end());
  }
  if (pts.size() < 16) return std::nullopt;
  // Medians of 5: single spikes move nothing.
  std::vector<double> smooth;
  for (std::size_t i = 2; i + 2 < pts.size(); ++i) smooth.push_back(mean(pts, i - 2, i + 3));
  const auto low = static_cast<std::size_t>(std::min_element(smooth.begin(), smooth.end()) - smooth.begin());
  const std::size_t after = smooth.size() - 1 - low;
  if (after < 8 || smooth[low] <= 0 || smooth.back() < 1.15 * smooth[low]) return std::nullopt;
  std::size_t rising = 0, steps = 0;
  for (std::size_t j = low + 2; j + 1 < pts.size(); ++j, ++steps)
    if (pts[j + 1].value > pts[j].value) ++rising;
  // Noise rises about half the time: the rises must beat that by a one-sided sign test at
  // about 95% (1.645 standard deviations of a fair coin's count), not only reach 60%.
  const double n = static_cast<double>(steps);
  if (steps == 0 || rising * 10 < steps * 6 || static_cast<double>(rising) < n / 2 + 1.645 * std::sqrt(n) / 2)
    return std::nullopt;
  // A rise of under half the low counts only when it is steady: ten or more values after
  // the low, four in five of them higher than the one before (a loss that climbs epoch
  // after epoch, not a noisy plateau).
  if (smooth.back() < 1.5 * smooth[low] && (steps < 10 || rising * 5 < steps * 4)) return std::nullopt;
  return LateRise{smooth[low], smooth.back(), pts[low + 2].line, pts.back().line, steps, rising};
}

int printed_digits(double v) {
  if (!std::isfinite(v) || v == 0) return 1;  // log10 of 0 or of a non-finite value has no digit count
  int d = 0;
  while (d < 9 && std::fabs(v * std::pow(10.0, d) - std::round(v * std::pow(10.0, d))) > 1e-6) ++d;
  return d + std::max(0, static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1);
}

}  // namespace gpualert::classify::detail
