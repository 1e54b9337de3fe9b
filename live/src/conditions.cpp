#include "gpualert/live/conditions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpualert/common/text.hpp"

namespace gpualert::live {
namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, std::fabs(v) >= 1e5 || (v != 0 && std::fabs(v) < 1e-3) ? "%.3g" : "%.4g", v);
  return b;
}

std::string clock_of(Clock::time_point t) {
  const std::string iso = iso8601_utc(t);  // 2026-11-27T14:02:11Z
  return iso.size() >= 19 ? iso.substr(11, 8) + " UTC" : iso;
}

}  // namespace

std::string human_minutes(std::chrono::milliseconds d) {
  const long long s = d.count() / 1000;
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string(s / 60) + " min";
  return std::to_string(s / 3600) + " h " + std::to_string((s % 3600) / 60) + " min";
}

// True when CONDITION just became true (not while it stays true); a condition that
// stopped being true may fire again.
bool Conditions::edge(const std::string& condition, bool now_true) {
  const auto it = std::find(active_.begin(), active_.end(), condition);
  if (!now_true) {
    if (it != active_.end()) active_.erase(it);
    return false;
  }
  if (it != active_.end()) return false;
  active_.push_back(condition);
  return true;
}

std::vector<Alert> Conditions::observe(const Observation& o) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  std::vector<Alert> out;
  const auto& s = o.snap;
  // CPU use over the last interval: busy (a spin, a collective that polls) or idle (a deadlock, a blocked read).
  if (o.cpu_s) {
    if (cpu_prev_ && o.at > cpu_prev_at_)
      cpu_rate_ = (*o.cpu_s - *cpu_prev_) / std::chrono::duration<double>(o.at - cpu_prev_at_).count();
    cpu_prev_ = o.cpu_s;
    cpu_prev_at_ = o.at;
  }
  const std::string last = o.last_line.empty() ? "nothing printed yet"
                                               : "last line at " + clock_of(o.last_output) + ": '" + o.last_line + "'";

  const auto silent = duration_cast<milliseconds>(o.at - o.last_output);
  if (edge("stall", o.alive && silent >= limits_.stall_after)) {
    Alert a{"stall", "no output for " + human_minutes(silent), {}, o.last_output + limits_.stall_after};
    a.facts.push_back(last);
    if (cpu_rate_ >= 0)
      a.facts.push_back(cpu_rate_ >= 0.5 ? "the command is using CPU (" + num(cpu_rate_) +
                                               " CPU seconds per second): a busy loop or a collective that spins"
                                         : "the command is idle (" + num(cpu_rate_) +
                                               " CPU seconds per second): a deadlock or a blocked read");
    a.facts.push_back("the command is still running and holds its GPUs");
    out.push_back(a);
  }
  const bool cancel_due = limits_.cancel_after_stall.count() > 0 && o.alive &&
                          silent >= limits_.stall_after + limits_.cancel_after_stall;
  if (edge("stall_cancel", cancel_due)) {
    Alert a{"stall_cancel", "no output for " + human_minutes(silent) + ": ended to free its GPUs", {},
            o.last_output + limits_.stall_after + limits_.cancel_after_stall};
    a.facts.push_back(last);
    a.facts.push_back("the stall alert went out " + human_minutes(limits_.cancel_after_stall) +
                      " ago and nothing was printed since (cancel_after_stall)");
    a.facts.push_back("the verdict follows when it has ended");
    out.push_back(a);
  }
  // Past the command's end the verdict speaks: nothing live is said any more.
  if (edge("nan", o.alive && s.nonfinite > 0)) {
    Alert a{"nan",
            limits_.line_numbers ? "the loss is not a number since line " + std::to_string(s.first_nonfinite_line)
                                 : "the loss is not a number",
            {}, o.at};
    a.facts.push_back(std::to_string(s.nonfinite) + " non-finite loss value(s) of " + std::to_string(s.losses));
    if (s.last_loss) a.facts.push_back("the last finite loss was " + num(*s.last_loss));
    a.facts.push_back(last);
    a.facts.push_back("the command is still running: it trains on garbage from here");
    out.push_back(a);
  }
  if (edge("divergence", o.alive && s.rising && s.nonfinite == 0)) {
    Alert a{"divergence", "the loss rose from its low of " + num(s.low) + " to " + num(s.now), {}, o.at};
    a.facts.push_back(last);
    out.push_back(a);
  }
  // The pace, from the first observation that saw steps to the last one that saw a new
  // step: a run that stopped advancing is a stall (said as such), not a slow run.
  if (s.step > 0 && s.total_steps > s.step && !pace_from_) pace_from_ = {o.at, s.step};
  if (s.step > last_step_) {
    last_step_ = s.step;
    last_advance_ = o.at;
  }
  bool late = false;
  std::string eta;
  if (limits_.time_limit.count() > 0 && pace_from_ && s.total_steps > s.step && o.alive) {
    const double secs = std::chrono::duration<double>(last_advance_ - pace_from_->first).count();
    const double done = static_cast<double>(s.step - pace_from_->second);
    // Judged once the pace is known: a minute and 1% of the steps, or 5% of the limit.
    const double limit_s = static_cast<double>(limits_.time_limit.count()) / 1000.0;
    if (done > 0 && (secs >= 60 || secs >= 0.05 * limit_s) && done >= 0.01 * static_cast<double>(s.total_steps)) {
      const double rate = done / secs;
      const double left_s = static_cast<double>(s.total_steps - s.step) / rate;
      const double end_s = std::chrono::duration<double>(o.at - limits_.started).count() + left_s;
      late = end_s > limit_s;
      eta = "at " + num(rate) + " steps/s, step " + std::to_string(s.step) + " of " + std::to_string(s.total_steps) +
            " ends about " + human_minutes(milliseconds(static_cast<long long>(end_s * 1000))) +
            " after the start; the limit is " + human_minutes(limits_.time_limit);
    }
  }
  if (edge("wont_finish", late)) {
    Alert a{"wont_finish", "will not finish within its time limit", {eta, last}, o.at};
    out.push_back(a);
  }
  fired_.insert(fired_.end(), out.begin(), out.end());
  return out;
}

}  // namespace gpualert::live
