// Training-progress parsing: cheap substring gates first, then a few RE2 patterns.
#include "progress_tracker.hpp"

#include <re2/re2.h>

#include "gpualert/common/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace gpualert::classify::detail {
namespace {

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

double num(const std::string& s) {
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? std::nan("") : d;
}

// A value with an optional unit: "ms" scales to seconds.
double seconds(const std::string& v, const std::string& unit, bool ms_default = false) {
  const double d = num(v);
  if (std::isnan(d)) return d;
  if (unit == "ms" || (unit.empty() && ms_default)) return d / 1000.0;
  if (unit == "us") return d / 1e6;
  return d;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// A cited line: its head, whole UTF-8 characters only (a progress bar is mostly
// three-byte blocks; a cut inside one would make the verdict's JSON invalid).
std::string cut(std::string_view s) { return one_line(s, 240); }

void mark(Marker& m, std::uint64_t line, std::string_view text) {
  if (!m) {
    m.line = line;
    m.text = cut(text);
  }
}

// The patterns, named so that the fast matcher can select the lines they may match.
// "step 5/10", "step 5 of 10", mmengine's "Iter(train) [50/40000]" (not its "Iter(val)", whose
// count is the evaluation's; nor a bar's "Steps:  10%", a percentage), and in JSON records "\"step\": 5, \"of\": 10" or
// "\"current_steps\": 5, \"total_steps\": 10" (LLaMA-Factory's trainer_log.jsonl).
constexpr const char* kStep = R"((?i)(?:^|[^\w])(?:global[_ ]step|current[_ ]steps?|steps?|iteration|iter)(?:\(train\))?['"]?\s*[:=]?\s*\[?\s*(\d{1,9})(?:\s*(?:/|of)\s*(\d{1,9})|['"]?\s*,\s*['"](?:of|total|total_steps|max_steps)['"]\s*:\s*(\d{1,9}))?(?:[^\d%]|$))";
constexpr const char* kBracketStep = R"(^\s*\[\s*(\d{1,9})\s*\])";
constexpr const char* kFracBar = R"((?:^|[\s|\[:])(\d{1,9})/(\d{1,9})\s*[\[(])";
// A bar's elapsed clock after its count: "12/28 [02:08<01:30", "100/100 [1:16:07<00:00".
constexpr const char* kBarClock = R"((\d{1,9})/(\d{1,9})\s*\[(?:(\d{1,4}):)?(\d{1,2}):(\d{2})\s*[<,\]])";
// What a bar that is not the training's own says before its count (loading, evaluation, data preparation).
constexpr const char* kSideBar = R"((?i)load|map|download|generat|token|fetch|eval|valid|test|filter|process|extract|infer|predict|sampl|shard|convert|prepar|build|index|writ|sav|upload|encod|decod|warm|resolv|comput|search|scan|calibrat)";
// Also mmcv's "Epoch [12][50/500]" and mmengine's "Epoch(train) [12][50/500]" (the bracketed first
// number is the epoch), and Python 2's printed tuple "('Epoch ', 3, ' Loss: ', 0.5)".
constexpr const char* kEpoch =
    R"((?i)(?:^|[^\w])epoch(?:\((?:train|val|test)\))?\s*[:=]?\s*(?:['"]\s*,\s*)?\[?\s*(\d{1,6})(?:\s*(?:/|of)\s*(\d{1,6}))?)";
// The plan in words: mmcv's runner says "workflow: [('train', 1)], max: 12 epochs"; scripts
// say "Training for 30 epochs"; Chainer's examples echo their arguments as "# epoch: 20".
constexpr const char* kEpochsSentence =
    R"((?i)\bmax:\s*(\d{1,5})\s*epochs\b|\b(?:train(?:ing)?|run(?:ning)?)\s+for\s+(\d{1,5})\s+epochs\b|^\s*#\s*epochs?\s*[:=]\s*(\d{1,5})\s*$)";
// The plan in steps, in words: "Training for 5000 steps", "... aiming for 160000 steps".
constexpr const char* kStepsSentence =
    R"((?i)\b(?:train(?:ing)?|run(?:ning)?|aiming|targeting)\s+(?:for|to)\s+(\d[\d,]{0,12})\s+(?:total\s+)?(?:optimi[sz]ation\s+|training\s+|update\s+)?(?:steps|iterations|iters|updates)\b)";
// A setting that announces the number of epochs ("epochs=5", "--num_epochs 5", "'epochs': 5",
// "max_epochs: 5", "Num Epochs = 3"): the name must stand alone ("warmup_epochs" is not it).
constexpr const char* kEpochsSetting =
    R"((?i)(?:^|[^\w])(?:num[_ ]?train[_ ]epochs|num[_ ]epochs?|max[_ ]epochs?|n[_ ]epochs|total[_ ]epochs|train[_ ]epochs|nb[_ ]epochs?|epoch[_ ]num|epochs)['"]?\s*[=:]?\s*['"]?(\d{1,5})\b)";
constexpr const char* kStepSetting = R"((?i)(?:accumulation|warmup|optimization|logging|save|eval|evaluation|max|total|num)[_ ]steps?\b)";
// Iteration-counted loops name theirs max_iters (nanoGPT, mmengine) or MAX_ITER (detectron2).
constexpr const char* kTotal = R"((?i)(?:Total optimization steps|max_steps|train_iters|max_iters?|total steps|num_training_steps)['"]?\s*[=:]\s*['"]?(\d[\d,]*))";
// Hugging Face Trainer's closing metrics: run time and optimizer steps per second, whose
// product is the number of steps the run took.
constexpr const char* kHfRuntime = R"(['"]train_runtime['"]\s*:\s*([\d.]+))";
constexpr const char* kHfStepRate = R"(['"]train_steps_per_second['"]\s*:\s*([\d.]+))";
constexpr const char* kPerStep = R"(([\d.]+)\s*(ms|s)/(?:step|it)\b)";
constexpr const char* kItPerS = R"(([\d.]+)\s*it/s\b)";
constexpr const char* kMegatronMs = R"(elapsed time per iteration \(ms\):\s*([\d.]+))";
constexpr const char* kIterTime = R"((?i)iter(?:ation)? time \((ms|s)\):\s*([\d.]+))";
constexpr const char* kNamedStep = R"((?i)(?:^|[^\w])(?:step_time|step time|time/step|batch_time|iter_time|time_per_step|step_ms|epoch_time|epoch time|time/epoch|time_per_epoch|time)(_ms)?\s*[:=]?\s*([\d.]+)\s*(ms|s)?\b)";
constexpr const char* kCompute = R"((?i)(?:^|[^\w])(?:fwd_bwd|compute_time|compute|forward_backward|fwd)(_ms)?\s*[:=]?\s*([\d.]+)\s*(ms|s)?\b)";
constexpr const char* kWait = R"((?i)(?:^|[^\w])(?:allreduce_wait|comm_wait|comm_time|sync_wait|wait_time|bwd_allreduce)(_ms)?\s*[:=]?\s*([\d.]+)\s*(ms|s)?\b)";
constexpr const char* kData = R"((?i)(?:^|[^\w])(?:data_time|data time|data_wait|data)(_ms)?\s*[:=]\s*([\d.]+)\s*(ms|s)?\b|(?:^|[^\w])(?:data_time|Data)\s+([\d.]+)\s*(ms|s)?(?:\s*\(|\s|$))";
constexpr const char* kGrad = R"((?i)grad[_ ]?norm['"]?\s*[:=]?\s*([-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)))";
constexpr const char* kLr = R"((?i)(?:^|[^\w])(?:learning[_ ]rate|lr)['"]?\s*[:=]?\s*\[?\s*([-+]?\d+\.?\d*(?:e[-+]?\d+)?))";
constexpr const char* kBodyRank = R"((?i)(?:^|[^\w])rank\s*[=:]?\s*(\d{1,6})\b)";
constexpr const char* kTs = R"((\d{4})[-/](\d{2})[-/](\d{2})[ T](\d{2}):(\d{2}):(\d{2}))";
constexpr const char* kSave = R"((?i)(?:sav(?:e|ed|ing)|wr(?:ote|iting))\b[^.]{0,40}\b(?:checkpoint|ckpt)|checkpoint (?:saved|written))";
constexpr const char* kLoad = R"((?i)loading checkpoint (?:from|at)|(?:successfully )?loaded checkpoint|Restoring states from the checkpoint|Restored all states|Continuing training from checkpoint|resumed (?:training )?from|resuming from checkpoint .*(?:step|iteration|epoch)\s*\d|load(?:ed|ing) (?:model|optimizer|training) state|loaded state dict from)";
constexpr const char* kResumeKv = R"((?i)(?:resume(?:_from_checkpoint|_from|_path|_ckpt)?|ckpt_path|load_checkpoint|initial_epoch|restore_from)['"]?\s*[=:]\s*['"]?([\w./-]+))";
constexpr const char* kResumeFlag = R"((?i)(?:^|\s)--(?:resume|load|resume[-_]from[-_]checkpoint)(?:[= ]+(\S+))?|\bResuming (?:training|from|run)\b|\bRestarting (?:from|training)\b|SLURM_RESTART_COUNT=([1-9]))";
constexpr const char* kMegatronLoad = R"(^\s*load\s\.{3,}\s(\S+))";
constexpr const char* kFresh = R"((?i)will not load any checkpoints|start(?:ing)? (?:training )?from (?:scratch|random)|training from scratch|no checkpoint (?:found|to resume)|could not find (?:the )?(?:metadata file|checkpoint))";
constexpr const char* kLaunchBlocking = R"((?:^|[\s:'"])CUDA_LAUNCH_BLOCKING['"]?\s*[=:]\s*['"]?1\b)";
constexpr const char* kThrottle = R"((?i)(?:thermal|power) (?:slowdown|brake|cap)\s*:\s*active|throttl(?:e|ing)[^:]*:\s*active|clocks? (?:are )?(?:being )?throttled|thermal violation|\b(?:HW|SW)_(?:THERMAL_|POWER_BRAKE_)?SLOWDOWN\b)";
// A setting that turns early stopping on: "early_stop_patience :4", "patience=10",
// "EarlyStopping(monitor=val_loss, patience=5)". A patience of 0 or none is not.
constexpr const char* kEarlyStopSetting = R"((?i)(?:early_?stop\w*|\bpatience)['"]?\s*[:=]\s*['"]?[1-9])";
// An epoch the program passed over without training it: a resumed run skipping what it
// had done ("Epoch: 3, ... - already passed", "Skipping epoch 4 (already trained)").
constexpr const char* kEpochSkipped = R"((?i)\bepoch\b.*\b(?:already (?:passed|done|trained|completed|finished)|skipp(?:ing|ed))\b|\bskipp(?:ing|ed) epoch\b)";
constexpr const char* kLoader = R"((?i)does not have many workers which may be a bottleneck|suggested max number of worker|(?:dataloader|data loader|input pipeline)[^.]{0,40}\bbottleneck|waiting (?:on|for) (?:input|data))";

struct Patterns {
  RE2::Options opt() {
    RE2::Options o;
    o.set_log_errors(false);
    return o;
  }
  // Steps.
  RE2 step{kStep, opt()};
  RE2 bracket_step{kBracketStep, opt()};
  RE2 frac_bar{kFracBar, opt()};
  RE2 bar_clock{kBarClock, opt()};
  RE2 side_bar{kSideBar, opt()};
  RE2 epoch{kEpoch, opt()};
  RE2 epochs_setting{kEpochsSetting, opt()};
  RE2 epochs_sentence{kEpochsSentence, opt()};
  RE2 steps_sentence{kStepsSentence, opt()};
  // Settings that name steps without being one ("Gradient Accumulation steps = 1").
  RE2 step_setting{kStepSetting, opt()};
  RE2 total{kTotal, opt()};
  RE2 hf_runtime{kHfRuntime, opt()};
  RE2 hf_step_rate{kHfStepRate, opt()};
  // Timings.
  RE2 per_step{kPerStep, opt()};
  RE2 it_per_s{kItPerS, opt()};
  RE2 megatron_ms{kMegatronMs, opt()};
  RE2 iter_time{kIterTime, opt()};
  RE2 named_step{kNamedStep, opt()};
  RE2 compute{kCompute, opt()};
  RE2 wait{kWait, opt()};
  // "data_time: 0.3", "data=12ms", "data_time 0.3", and the ImageNet example's "Data 0.31 (0.29)".
  RE2 data{kData, opt()};
  RE2 grad{kGrad, opt()};
  RE2 lr{kLr, opt()};
  RE2 body_rank{kBodyRank, opt()};
  RE2 ts{kTs, opt()};
  // Markers.
  RE2 save{kSave, opt()};
  RE2 load{kLoad, opt()};
  RE2 resume_kv{kResumeKv, opt()};
  RE2 resume_flag{kResumeFlag, opt()};
  RE2 megatron_load{kMegatronLoad, opt()};
  RE2 fresh{kFresh, opt()};
  RE2 launch_blocking{kLaunchBlocking, opt()};
  RE2 throttle{kThrottle, opt()};
  RE2 loader{kLoader, opt()};
  RE2 early_stop_setting{kEarlyStopSetting, opt()};
  RE2 epoch_skipped{kEpochSkipped, opt()};
};

const Patterns& P() {
  static const Patterns p;
  return p;
}

std::string lowered(const std::string& v) {
  std::string l;
  for (char c : v) l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return l;
}

// "1", "true", "auto": resume if there is something to resume, not a checkpoint named.
bool switch_on(const std::string& v) {
  const std::string l = lowered(v);
  return l.empty() || l == "1" || l == "true" || l == "yes" || l == "on" || l == "auto";
}

bool falsy(const std::string& v) {
  const std::string l = lowered(v);
  return l.empty() || l == "none" || l == "false" || l == "null" || l == "0" || l == "no" || l == "''";
}

std::int64_t to_epoch(int y, int mo, int d, int h, int mi, int s) {
  std::tm t{};
  t.tm_year = y - 1900;
  t.tm_mon = mo - 1;
  t.tm_mday = d;
  t.tm_hour = h;
  t.tm_min = mi;
  t.tm_sec = s;
  return static_cast<std::int64_t>(timegm(&t));
}

}  // namespace

void Series::add(std::uint64_t line, double v) {
  if (!std::isfinite(v)) return;
  if (n_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  ++n_;
  if (head_.size() < kKeep) {
    head_.emplace_back(line, v);
    return;
  }
  tail_.emplace_back(line, v);
  if (tail_.size() > kKeep) tail_.pop_front();
}

std::vector<double> Series::values() const {
  std::vector<double> v;
  for (const auto& p : head_) v.push_back(p.second);
  for (const auto& p : tail_) v.push_back(p.second);
  return v;
}

bool ProgressTracker::lr_schedule_ended() const {
  if (lr.count() < 4 || !last_lr) return false;
  const auto v = lr.values();
  const std::size_t n = v.size();
  const double last = v[n - 1], prev = v[n - 2];
  return v[n - 3] > prev && prev > last && last >= 0 && last <= 0.02 * lr.max() && last < prev - last;
}

bool Series::only_rises() const {
  const auto v = values();
  for (std::size_t i = 1; i < v.size(); ++i)
    if (!(v[i] > v[i - 1])) return false;
  return v.size() >= 2;
}

double Series::early(std::size_t k) const {
  const auto v = values();
  k = std::min(k, std::max<std::size_t>(1, v.size() / 4));
  return median(std::vector<double>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(k, v.size()))));
}

double Series::late(std::size_t k) const {
  const auto v = values();
  k = std::min(k, std::max<std::size_t>(1, v.size() / 4));
  return median(std::vector<double>(v.end() - static_cast<std::ptrdiff_t>(std::min(k, v.size())), v.end()));
}

void ProgressTracker::note_step(std::uint64_t step, std::uint64_t total) {
  if (!have_step) first_step = step;
  have_step = true;
  max_step = std::max(max_step, step);
  if (total >= step && total > 0) total_steps = std::max(total_steps, total);
}

// An epoch counter seen: "Epoch 3/10" in text, or "3/10" under a table's Epoch column.
// True when the counter moved on (progress).
bool ProgressTracker::note_epoch(std::int64_t e, std::uint64_t total, bool has_total, std::string_view s,
                                 std::uint64_t line) {
  bool is_progress = false;
  if (e != epoch_no_) {
    // A counter that moved on is progress ("Epoch 8: Train=... Val=..."), whatever the metrics are called.
    if (e > epoch_no_) is_progress = true;
    epoch_no_ = e;
    ++epoch_index_;
  }
  if (e <= 1 && epoch_high_ >= 3 && has_total) {
    // Back to the first epoch of an announced plan ("Epoch 1/10", not "best at epoch 1"):
    // a new run (another model, a second stage) starts here.
    restarted_at = line;
    max_epoch = total_epochs = 0;
    counted_epoch_low = -1;
    last_epoch = Marker{};
    epoch_high_ = e;
  }
  epoch_high_ = std::max(epoch_high_, e);
  // "Epoch 4" with no "/N": how far it got, against a total the settings may announce.
  if (!has_total && e >= 0) {
    if (bare_epoch_first < 0) bare_epoch_first = e;
    if (e >= bare_epoch_high) {
      bare_epoch_high = e;
      bare_epoch_last = Marker{line, cut(s)};
    }
  }
  // "Epoch 3/10", "Epoch: 145 / 150": how far the announced plan got.
  if (total > 0 && e >= 0 && static_cast<std::uint64_t>(e) <= total &&
      (counted_epoch_low < 0 || e < counted_epoch_low))
    counted_epoch_low = e;
  if (total > 0 && e >= 0 && static_cast<std::uint64_t>(e) <= total &&
      (static_cast<std::uint64_t>(e) > max_epoch || !last_epoch)) {
    max_epoch = static_cast<std::uint64_t>(e);
    total_epochs = std::max(total_epochs, total);
    last_epoch = Marker{line, cut(s)};
  }
  return is_progress;
}

void ProgressTracker::table_counters(std::optional<std::int64_t> epoch, std::uint64_t epoch_total,
                                     std::optional<std::uint64_t> step, std::uint64_t step_total,
                                     std::string_view row, std::uint64_t line) {
  if (epoch) (void)note_epoch(*epoch, epoch_total, epoch_total > 0, row, line);
  if (step) {
    note_step(*step, step_total);
    // The Step column counts the optimizer's steps, which a banner may have announced.
    if (*step == max_step) last_counted_step = Marker{line, cut(row)};
  }
}

void ProgressTracker::steps(std::string_view s, std::uint64_t line, bool& is_progress) {
  const Patterns& p = P();
  const re2::StringPiece sp(s.data(), s.size());
  std::string a, b;
  if (has(s, "poch") || has(s, "POCH")) {
    if (RE2::PartialMatch(sp, p.epochs_setting, &a) && num(a) >= 1) {
      announced_epochs = static_cast<std::uint64_t>(num(a));
      return;  // a setting, not an epoch
    }
    std::string c;
    if (RE2::PartialMatch(sp, p.epochs_sentence, &a, &b, &c)) {
      const std::string& n = !a.empty() ? a : !b.empty() ? b : c;
      if (num(n) >= 1) {
        announced_epochs = static_cast<std::uint64_t>(num(n));
        return;
      }
    }
    if (RE2::PartialMatch(sp, p.epoch, &a, &b))
      is_progress = note_epoch(static_cast<std::int64_t>(num(a)), b.empty() ? 0 : static_cast<std::uint64_t>(num(b)),
                               !b.empty(), s, line) || is_progress;
  }
  // Only the closing metrics were printed: the steps they imply, all that was planned.
  if (!have_step && has(s, "train_steps_per_second") && RE2::PartialMatch(sp, p.hf_runtime, &a) &&
      RE2::PartialMatch(sp, p.hf_step_rate, &b)) {
    const double n = std::round(num(a) * num(b));
    if (n >= 1 && n < 1e9) {
      note_step(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));
      last_counted_step = Marker{line, cut(s)};
      steps_from_closing_metrics = true;
      is_progress = true;
    }
    return;
  }
  // "Total optimization steps = 40", "max_steps=256": the planned length.
  if (RE2::PartialMatch(sp, p.total, &a) || RE2::PartialMatch(sp, p.steps_sentence, &a)) {
    a.erase(std::remove(a.begin(), a.end(), ','), a.end());
    total_steps = std::max<std::uint64_t>(total_steps, static_cast<std::uint64_t>(num(a)));
    return;  // a plan, not a step taken ("Total optimization steps = 1000" is no step 1000)
  }
  a.clear();
  b.clear();
  // A setting that names steps is no step taken, unless the record names its current step too.
  if (!has(s, "current_step") && RE2::PartialMatch(sp, p.step_setting)) return;
  std::string c;
  if (RE2::PartialMatch(sp, p.step, &a, &b, &c) || RE2::PartialMatch(sp, p.bracket_step, &a)) {
    if (b.empty()) b = c;
    note_step(static_cast<std::uint64_t>(num(a)), b.empty() ? 0 : static_cast<std::uint64_t>(num(b)));
    step_on_line_ = static_cast<std::uint64_t>(num(a));
    // "step 500" after "max_steps=500": the count a setting announced, reached.
    if ((!b.empty() || (total_steps && steps_taken() >= total_steps)) && static_cast<std::uint64_t>(num(a)) == max_step)
      last_counted_step = Marker{line, cut(s)};
    is_progress = true;
    return;
  }
  // A progress bar or "[b/B]" within an epoch: count across epochs.
  if (RE2::PartialMatch(sp, p.frac_bar, &a, &b)) {
    const auto bi = static_cast<std::uint64_t>(num(a));
    const auto bn = static_cast<std::uint64_t>(num(b));
    const auto at = s.find(a + "/" + b);
    const std::string_view desc = s.substr(0, at == std::string_view::npos ? 0 : at);
    // A loading or evaluation bar, or one nested under another (tqdm moves the cursor
    // back up after it: ESC [A), counts no training step and times none.
    side_bar_ = has(s, "\x1b[A") || has(s, "][A") || RE2::PartialMatch(re2::StringPiece(desc.data(), desc.size()), p.side_bar);
    if (bn > 0 && bi <= bn && !side_bar_) {
      bar_total_on_line_ = bn;
      const std::uint64_t ep = epoch_index_ > 0 ? epoch_index_ - 1 : 0;
      note_step(ep * bn + bi, 0);
      is_progress = true;
      {
        bar_end = Marker{line, cut(s)};
        bar_end_full = bi == bn && bn >= 5;
        std::string count, of, h, m, sec;
        if (RE2::PartialMatch(sp, p.bar_clock, &count, &of, &h, &m, &sec) && count == a)
          rhythm.record(bi, static_cast<std::uint64_t>(num(h.empty() ? "0" : h) * 3600 + num(m) * 60 + num(sec)), line);
      }
    }
  }
  (void)line;
}

void ProgressTracker::timings(std::string_view s, std::string_view rank, std::uint64_t line) {
  const Patterns& p = P();
  const re2::StringPiece sp(s.data(), s.size());
  std::string v, u, ms;
  double st = std::nan("");
  if (RE2::PartialMatch(sp, p.megatron_ms, &v)) st = seconds(v, "ms");
  else if (RE2::PartialMatch(sp, p.iter_time, &u, &v)) st = seconds(v, u);
  else if (RE2::PartialMatch(sp, p.per_step, &v, &u)) st = seconds(v, u);
  else if (RE2::PartialMatch(sp, p.named_step, &ms, &v, &u)) st = seconds(v, u, !ms.empty());
  else if (RE2::PartialMatch(sp, p.it_per_s, &v)) {
    const double r = num(v);
    if (r > 0) st = 1.0 / r;
  }
  if (side_bar_) st = std::nan("");  // a loading or evaluation bar's rate is not the training's step
  double cp = std::nan(""), wt = std::nan(""), dt = std::nan("");
  if (RE2::PartialMatch(sp, p.compute, &ms, &v, &u)) cp = seconds(v, u, !ms.empty());
  if (RE2::PartialMatch(sp, p.wait, &ms, &v, &u)) wt = seconds(v, u, !ms.empty());
  {
    std::string v2, u2;
    if (RE2::PartialMatch(sp, p.data, &ms, &v, &u, &v2, &u2)) dt = v.empty() ? seconds(v2, u2) : seconds(v, u, !ms.empty());
  }
  if (std::isfinite(st)) {
    auto it = step_times_.find(bar_total_on_line_);
    if (it == step_times_.end() && step_times_.size() < kBarLengths)
      it = step_times_.emplace(bar_total_on_line_, Series{}).first;
    if (it != step_times_.end()) it->second.add(line, st);
  }
  if (std::isfinite(st) && step_on_line_) rhythm.record_duration(*step_on_line_, st, line);
  if (std::isfinite(dt)) data_time.add(line, dt);
  if (std::isfinite(st) && std::isnan(cp) && std::isnan(wt) && rank.empty()) return;
  if (!std::isfinite(st) && !std::isfinite(cp) && !std::isfinite(wt)) return;
  std::string key(rank);
  if (key.empty()) {
    std::string r;
    if (!RE2::PartialMatch(sp, p.body_rank, &r)) return;
    key = r;
  }
  auto it = ranks.find(key);
  if (it == ranks.end()) {
    if (ranks.size() >= kMaxRanks) return;
    it = ranks.emplace(key, RankTiming{}).first;
    it->second.line = line;
    it->second.text = cut(s);
  }
  RankTiming& r = it->second;
  if (std::isfinite(st)) { r.step_sum += st; ++r.step_n; }
  if (std::isfinite(cp)) { r.compute_sum += cp; ++r.compute_n; }
  if (std::isfinite(wt)) { r.wait_sum += wt; ++r.wait_n; }
}

void ProgressTracker::markers(std::string_view s, std::uint64_t line) {
  const Patterns& p = P();
  const re2::StringPiece sp(s.data(), s.size());
  const bool ck = has(s, "heckpoint") || has(s, "ckpt") || has(s, "CHECKPOINT");
  // The gate is case-sensitive, the patterns are not: "RESUME=1" printed from the environment counts too.
  if (ck || has(s, "esum") || has(s, "ESUM") || has(s, "estor") || has(s, "ESTOR") || has(s, "oad") || has(s, "OAD") ||
      has(s, "RESTART") || has(s, "initial_epoch") ||
      has(s, "estart")) {
    std::string v, w;
    if (ck && !has(s, "shards") && RE2::PartialMatch(sp, p.load)) mark(load, line, s);
    else if (ck && RE2::PartialMatch(sp, p.save)) {
      if (!first_save) mark(first_save, line, s);
      ++ckpt_saves;
    }
    if (RE2::PartialMatch(sp, p.fresh)) mark(fresh_start, line, s);
    if (!resume_request) {
      if (RE2::PartialMatch(sp, p.resume_kv, &v) && !falsy(v)) mark(resume_request, line, s);
      else if (RE2::PartialMatch(sp, p.megatron_load, &v) && !falsy(v)) mark(resume_request, line, s);
      else if (RE2::PartialMatch(sp, p.resume_flag, &v, &w) && (v.empty() || !falsy(v))) mark(resume_request, line, s);
      if (resume_request.line == line) resume_is_switch = switch_on(v);
    }
  }
  if (has(s, "Running training")) mark(banner, line, s);
  if (has(s, "CUDA_LAUNCH_BLOCKING") && !has(s, "onsider") && !has(s, "ebug") && !has(s, "might") &&
      RE2::PartialMatch(sp, p.launch_blocking))
    mark(launch_blocking, line, s);
  if (has(s, "NCCL")) {
    if (has(s, "Using network Socket") || has(s, "NET/Socket : Using")) mark(net_socket, line, s);
    if (has(s, "Using network IB") || has(s, "NET/IB : Using")) mark(net_ib, line, s);
  }
  if (has(s, "throttle_reasons") || has(s, "event_reasons") || has(s, "clocks_throttle") || has(s, "clocks_event"))
    throttle_csv_ = true;
  const bool csv_active = throttle_csv_ && has(s, ", Active");
  if (csv_active || ((has(s, "Active") || has(s, "active") || has(s, "hrottl") || has(s, "iolation") || has(s, "SLOWDOWN")) &&
                     RE2::PartialMatch(sp, p.throttle))) {
    if (!(has(s, "Not Active") && !csv_active)) {
      ++throttle_active_n;
      mark(throttle_active, line, s);
    }
  }
  if ((has(s, "worker") || has(s, "ottleneck") || has(s, "aiting")) && RE2::PartialMatch(sp, p.loader))
    mark(loader_warning, line, s);
  if (!early_stop_setting && (has(s, "atience") || has(s, "arly")) && RE2::PartialMatch(sp, p.early_stop_setting))
    mark(early_stop_setting, line, s);
  if ((has(s, "poch") || has(s, "POCH")) && (has(s, "lready") || has(s, "kipp")) && RE2::PartialMatch(sp, p.epoch_skipped)) {
    ++epochs_skipped;
    epoch_skipped = Marker{line, cut(s)};  // the newest
  }
}

const Series& ProgressTracker::step_time() const {
  static const Series kNone;
  const Series* best = &kNone;
  for (const auto& [total, series] : step_times_)
    if (series.count() > best->count()) best = &series;
  return *best;
}

void ProgressTracker::feed(std::string_view body, std::string_view prefix, std::uint64_t line, bool has_loss) {
  if (body.size() < 3) return;
  const Patterns& p = P();
  // Timestamps ("2026-02-22 18:30:28", "2026-02-22T22:50:21").
  std::int64_t ts = 0;
  if (body.size() >= 19 && has(body, ":")) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (RE2::PartialMatch(re2::StringPiece(body.data(), std::min<std::size_t>(body.size(), 400)), p.ts, &y, &mo, &d, &h,
                          &mi, &sec) &&
        y > 1990 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31) {
      ts = to_epoch(y, mo, d, h, mi, sec);
      if (!first_ts) first_ts = ts;
      last_ts = ts;
      last_ts_line = line;
      if (last_progress_line && !ts_after_progress_ && line > last_progress_line) ts_after_progress_ = ts;
      if (first_bound_pending_ && line > last_progress_line) {
        first_progress_bound_ts = ts;
        first_bound_pending_ = false;
      }
    }
  }
  markers(body, line);
  if (has(body, "rew") || has(body, "eturn") || has(body, "EpRet")) returns.feed(body, line);
  // Scheduler lines ("*** STEP 123.0 ON node CANCELLED ...") are never training progress.
  if (has(body, "slurmstepd") || has(body, "CANCELLED AT") || has(body, "srun: ")) return;
  if (ts) {
    last_output_ts = ts;
    last_output_ts_line = line;
  }
  bool any_digit = false;
  for (char c : body)
    if (std::isdigit(static_cast<unsigned char>(c))) { any_digit = true; break; }
  if (!any_digit) return;
  bool is_progress = has_loss;
  // Gate: the cheap words a progress line carries.
  const bool gate = has_loss || has(body, "tep") || has(body, "ter") || has(body, "poch") || has(body, "POCH") || has(body, "/it") ||
                    has(body, "it/s") || has(body, "ime") || has(body, "TEP") || has(body, "rank") || has(body, "ank") ||
                    has(body, "[") || has(body, "max_steps") || has(body, "_iter") || has(body, "_ITER");
  if (!gate) return;
  side_bar_ = false;
  bar_total_on_line_ = 0;
  step_on_line_.reset();
  steps(body, line, is_progress);
  if (!is_progress) return;
  ++progress_lines;
  if (progress_lines == 1) {
    first_progress_bound_ts = ts;
    first_bound_pending_ = ts == 0;
  }
  last_progress_line = line;
  last_progress_ts = ts;  // 0 when this progress line carries no stamp
  ts_after_progress_ = 0;
  timings(body, prefix, line);
  std::string v;
  const re2::StringPiece sp(body.data(), body.size());
  if ((has(body, "norm") || has(body, "Norm") || has(body, "NORM")) && RE2::PartialMatch(sp, p.grad, &v)) {
    const double g = num(v);
    grad_norm.add(line, g);
    ++grad_records;
    if (std::isfinite(g)) grad_nonfinite_streak = 0;
    else if (grad_nonfinite_streak++ == 0) grad_nonfinite_from = line;
  }
  if ((has(body, "lr") || has(body, "rate") || has(body, "LR")) && RE2::PartialMatch(sp, p.lr, &v)) {
    lr.add(line, num(v));
    last_lr = Marker{line, cut(body)};
  }
  if (has(body, "acc") || has(body, "Acc") || has(body, "ACC")) accuracy.feed(body, line);
}

void ProgressTracker::count_unread(std::uint64_t steps, std::uint64_t saves, std::uint64_t throttles) {
  progress_lines += steps;
  ckpt_saves += saves;
  throttle_active_n += throttles;
}

const std::vector<CuePattern>& progress_cues() {
  static const std::vector<CuePattern> cues = {
      // Looser than kStep (a superset of what it matches): a pattern that ends in a run
      // of digits reports every digit as a match end. kBracketStep, kFracBar and kTs,
      // all digits and punctuation, are found by shape_cues() (line_shape.hpp) instead.
      {R"((?i)step|iter|epoch)", CueKind::step},
      {R"(^\s*E\s+#\s+LOSS )", CueKind::step},  // spaCy's table header names its epoch and step "E" and "#"
      {kTotal, CueKind::marker},
      {kStepsSentence, CueKind::marker},
      {kLoad, CueKind::marker},
      {kResumeKv, CueKind::marker},
      {kResumeFlag, CueKind::marker},
      {kMegatronLoad, CueKind::marker},
      {kFresh, CueKind::marker},
      {kLaunchBlocking, CueKind::marker},
      {kLoader, CueKind::marker},
      {kEarlyStopSetting, CueKind::marker},
      {"ep_rew_mean|ep_reward_mean|episode_reward|mean_reward|avg_reward|average_reward|reward_mean|episodic_return|"
       "episode_return|mean_return|avg_return|average_return|return_mean|EpRet",
       CueKind::marker},
      {"Running training", CueKind::marker},
      {"Using network Socket|NET/Socket : Using|Using network IB|NET/IB : Using", CueKind::marker},
      {"throttle_reasons|event_reasons|clocks_throttle|clocks_event", CueKind::marker},
      {kSave, CueKind::save},
      {kThrottle, CueKind::throttle},
      {", Active", CueKind::throttle},
      {R"((?i)(?:^|[^\w])[-+]?(?:nan|inf(?:inity)?)\b)", CueKind::nonfinite},
  };
  return cues;
}

}  // namespace gpualert::classify::detail
