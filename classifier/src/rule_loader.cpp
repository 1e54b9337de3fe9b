// Rule files -> RuleSet. Strict on purpose: a typo in a site's rule file must fail
// loudly (naming the file and line) rather than silently never match.
#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "gpualert/classifier/classifier.hpp"
#include "gpualert/classifier/taxonomy.hpp"
#include "line_selection.hpp"
#include "rule_set.hpp"

namespace gpualert::classify::detail {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw RuleError("rule file " + file + ": " + what);
}

std::size_t line_of(const std::string& text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// A rule as read from JSON, before compilation (a later file may replace it).
struct RuleSpec {
  std::string id, cls, file, pattern, says, frames, frames_unless;
  Role role = Role::cause;
  Scope scope = Scope::line;
  int priority = -1;
  int signal = 0;
  bool icase = false;
  bool on_warnings = false;
  bool until_progress = false;
  bool marks_progress = true;
  bool disabled = false;
  std::vector<std::string> overrides;
};

Role parse_role(const std::string& file, const std::string& id, const std::string& s) {
  if (s == "cause") return Role::cause;
  if (s == "signal") return Role::signal;
  if (s == "disposition") return Role::disposition;
  if (s == "progress") return Role::progress;
  if (s == "done") return Role::done;
  if (s == "wrapper") return Role::wrapper;
  if (s == "hint") return Role::hint;
  fail(file, "rule '" + id + "': unknown role '" + s +
                 "' (cause, signal, disposition, progress, done, wrapper, hint)");
}

std::string get_string(const json& j, const std::string& file, const std::string& where) {
  if (!j.is_string()) fail(file, where + " must be a string");
  return j.get<std::string>();
}

std::vector<std::string> get_strings(const json& j, const std::string& file, const std::string& where) {
  std::vector<std::string> out;
  if (j.is_string()) return {j.get<std::string>()};
  if (!j.is_array()) fail(file, where + " must be a string or an array of strings");
  for (const auto& e : j) out.push_back(get_string(e, file, where));
  return out;
}

void read_class(const std::string& file, const std::string& id, const json& j, ClassText& out) {
  if (!find_class(id)) fail(file, "class '" + id + "' is not in the taxonomy");
  if (!j.is_object()) fail(file, "class '" + id + "' must be an object");
  for (const auto& [k, v] : j.items()) {
    const std::string where = "class '" + id + "' key '" + k + "'";
    if (k == "priority") {
      if (!v.is_number_integer()) fail(file, where + " must be an integer");
      out.priority = v.get<int>();
      out.has_priority = true;
    } else if (k == "headline") {
      out.headline = get_string(v, file, where);
    } else if (k == "remedy") {
      out.remedy = get_string(v, file, where);
    } else if (k == "implies") {
      out.implies = get_strings(v, file, where);
    } else if (k == "cannot_decide") {
      out.cannot_decide = get_strings(v, file, where);
    } else if (k != "comment") {
      fail(file, "unknown " + where);
    }
  }
}

RuleSpec read_rule(const std::string& file, const json& j, std::size_t index) {
  RuleSpec r;
  r.file = file;
  const std::string at = "rule #" + std::to_string(index + 1);
  if (!j.is_object()) fail(file, at + " must be an object");
  if (!j.contains("id")) fail(file, at + " has no 'id'");
  r.id = get_string(j["id"], file, at + " 'id'");
  const std::string where = "rule '" + r.id + "'";
  for (const auto& [k, v] : j.items()) {
    if (k == "id" || k == "comment") continue;
    if (k == "class") r.cls = get_string(v, file, where + " 'class'");
    else if (k == "pattern") r.pattern = get_string(v, file, where + " 'pattern'");
    else if (k == "says") r.says = get_string(v, file, where + " 'says'");
    else if (k == "frames") r.frames = get_string(v, file, where + " 'frames'");
    else if (k == "frames_unless") r.frames_unless = get_string(v, file, where + " 'frames_unless'");
    else if (k == "role") r.role = parse_role(file, r.id, get_string(v, file, where + " 'role'"));
    else if (k == "match") {
      const auto m = get_string(v, file, where + " 'match'");
      if (m == "line") r.scope = Scope::line;
      else if (m == "exception") r.scope = Scope::exception;
      else fail(file, where + ": 'match' must be \"line\" or \"exception\"");
    } else if (k == "priority") {
      if (!v.is_number_integer()) fail(file, where + " 'priority' must be an integer");
      r.priority = v.get<int>();
    } else if (k == "signal") {
      if (!v.is_number_integer() || v.get<int>() <= 0 || v.get<int>() > 64)
        fail(file, where + " 'signal' must be a signal number 1..64");
      r.signal = v.get<int>();
    } else if (k == "icase") {
      if (!v.is_boolean()) fail(file, where + " 'icase' must be true or false");
      r.icase = v.get<bool>();
    } else if (k == "warnings") {
      if (!v.is_boolean()) fail(file, where + " 'warnings' must be true or false");
      r.on_warnings = v.get<bool>();
    } else if (k == "until_progress") {
      if (!v.is_boolean()) fail(file, where + " 'until_progress' must be true or false");
      r.until_progress = v.get<bool>();
    } else if (k == "marks_progress") {
      if (!v.is_boolean()) fail(file, where + " 'marks_progress' must be true or false");
      r.marks_progress = v.get<bool>();
    } else if (k == "disabled") {
      if (!v.is_boolean()) fail(file, where + " 'disabled' must be true or false");
      r.disabled = v.get<bool>();
    } else if (k == "overrides") {
      r.overrides = get_strings(v, file, where + " 'overrides'");
    } else {
      fail(file, "unknown key '" + k + "' in " + where);
    }
  }
  if (r.disabled) return r;  // a site switching a built-in rule off needs only the id
  if (r.cls.empty()) fail(file, where + " has no 'class'");
  if (!find_class(r.cls)) fail(file, where + ": class '" + r.cls + "' is not in the taxonomy");
  if (r.pattern.empty()) fail(file, where + " has no 'pattern'");
  if (!r.frames.empty() && r.scope != Scope::exception) fail(file, where + ": 'frames' needs \"match\": \"exception\"");
  if (!r.frames_unless.empty() && r.scope != Scope::exception)
    fail(file, where + ": 'frames_unless' needs \"match\": \"exception\"");
  return r;
}

}  // namespace

// {"comment": "...", "points": [[raw, calibrated], ...], "by_class": {"cls": offset}}: raw
// strictly increasing, calibrated never decreasing (a higher raw confidence is never worth
// less), all in [0, 1]; a class's offset within [-0.5, 0.5].
void read_calibration(const std::string& file, const json& v, RuleSet& set) {
  if (!v.is_object()) fail(file, "'calibration' must be an object with 'points'");
  std::vector<std::pair<double, double>> out;
  std::map<std::string, double, std::less<>> offsets;
  for (const auto& [k, x] : v.items()) {
    if (k == "comment") continue;
    if (k == "by_class") {
      if (!x.is_object()) fail(file, "'calibration.by_class' must map class ids to offsets");
      for (const auto& [cls, d] : x.items()) {
        if (!find_class(cls)) fail(file, "calibration offset for '" + cls + "', which is not in the taxonomy");
        if (!d.is_number() || d.get<double>() < -0.5 || d.get<double>() > 0.5)
          fail(file, "calibration offset of '" + cls + "' must be a number within [-0.5, 0.5]");
        offsets[cls] = d.get<double>();
      }
      continue;
    }
    if (k != "points") fail(file, "unknown key '" + k + "' in 'calibration' (comment, points, by_class)");
    if (!x.is_array() || x.empty()) fail(file, "'calibration.points' must be a non-empty array of [raw, calibrated]");
    for (const auto& pt : x) {
      if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number())
        fail(file, "each calibration point must be [raw, calibrated]");
      const double raw = pt[0].get<double>(), cal = pt[1].get<double>();
      if (raw < 0 || raw > 1 || cal < 0 || cal > 1) fail(file, "calibration points must lie in [0, 1]");
      if (!out.empty() && (raw <= out.back().first || cal < out.back().second))
        fail(file, "calibration points must have increasing raw and non-decreasing calibrated values");
      out.emplace_back(raw, cal);
    }
  }
  if (out.empty()) fail(file, "'calibration' needs 'points'");
  set.calibration = std::move(out);  // a later file replaces it whole
  set.class_offset = std::move(offsets);
}

std::shared_ptr<const RuleSet> compile_rules(const std::vector<RuleSource>& sources) {
  auto set = std::make_shared<RuleSet>();
  std::vector<RuleSpec> specs;  // in definition order; replacement keeps the first position
  for (const auto& src : sources) {
    json doc;
    try {
      doc = json::parse(src.text);
    } catch (const json::parse_error& e) {
      fail(src.name, "line " + std::to_string(line_of(src.text, e.byte)) + ": JSON syntax error: " + e.what());
    }
    if (!doc.is_object()) fail(src.name, "line 1: the top level must be a JSON object");
    for (const auto& [k, v] : doc.items()) {
      if (k == "schema") {
        if (!v.is_number_integer() || v.get<int>() != 1) fail(src.name, "unsupported 'schema' (this build reads schema 1)");
      } else if (k == "classes") {
        if (!v.is_object()) fail(src.name, "'classes' must be an object");
        for (const auto& [id, cj] : v.items()) {
          ClassText& t = set->classes[id];
          ClassText merged = t;  // a later file overrides only the keys it sets
          read_class(src.name, id, cj, merged);
          t = merged;
        }
      } else if (k == "rules") {
        if (!v.is_array()) fail(src.name, "'rules' must be an array");
        for (std::size_t i = 0; i < v.size(); ++i) {
          RuleSpec r = read_rule(src.name, v[i], i);
          auto it = std::find_if(specs.begin(), specs.end(), [&](const RuleSpec& s) { return s.id == r.id; });
          if (it != specs.end()) {
            if (it->file == r.file) fail(src.name, "duplicate rule id '" + r.id + "'");
            *it = std::move(r);
          } else {
            specs.push_back(std::move(r));
          }
        }
      } else if (k == "calibration") {
        read_calibration(src.name, v, *set);
      } else if (k != "comment") {
        fail(src.name, "unknown top-level key '" + k + "' (schema, comment, classes, rules, calibration)");
      }
    }
  }

  for (auto& s : specs) {
    if (s.disabled) continue;
    Rule r;
    r.id = s.id;
    r.cls = s.cls;
    r.file = s.file;
    r.scope = s.scope;
    r.role = s.role;
    r.signal = s.signal;
    r.on_warnings = s.on_warnings;
    r.until_progress = s.until_progress;
    r.marks_progress = s.marks_progress;
    r.says = s.says;
    r.overrides = s.overrides;
    const ClassText* ct = set->text_for(s.cls);
    r.priority = s.priority >= 0 ? s.priority : (ct && ct->has_priority ? ct->priority : 50);
    r.pattern = s.icase ? "(?i)" + s.pattern : s.pattern;
    r.re = LazyRegex(r.pattern);
    if (!s.frames.empty()) r.frames_re = LazyRegex(s.icase ? "(?i)" + s.frames : s.frames);
    if (!s.frames_unless.empty())
      r.frames_unless_re = LazyRegex(s.icase ? "(?i)" + s.frames_unless : s.frames_unless);
    const int idx = static_cast<int>(set->rules.size());
    if (r.scope == Scope::line) {
      set->line_rules.push_back(idx);
      if (r.role == Role::progress) set->progress_rules.push_back(idx);
      if (r.role == Role::done) set->done_rules.push_back(idx);
    } else {
      set->exception_rules.push_back(idx);
    }
    set->rules.push_back(std::move(r));
  }
  for (auto& r : set->rules) {
    for (const auto& o : r.overrides) {
      for (std::size_t i = 0; i < set->rules.size(); ++i)
        if (set->rules[i].id == o) r.override_idx.push_back(static_cast<int>(i));
    }
  }
  // Every pattern is compiled once here, unless the matcher's cache shows that exactly
  // these patterns were (then each is compiled when a line first needs it).
  attach_matcher(*set, default_matcher_cache_dir(), [&] {
    for (const auto& r : set->rules) {
      if (!r.re.get().ok()) fail(r.file, "rule '" + r.id + "': invalid RE2 pattern: " + r.re.get().error());
      if (r.frames_re && !r.frames_re.get().ok())
        fail(r.file, "rule '" + r.id + "': invalid RE2 'frames' pattern: " + r.frames_re.get().error());
      if (r.frames_unless_re && !r.frames_unless_re.get().ok())
        fail(r.file, "rule '" + r.id + "': invalid RE2 'frames_unless' pattern: " + r.frames_unless_re.get().error());
    }
    if (!set->line_rules.empty() && !set->line_set_ok())
      throw RuleError("rules: the line patterns together exceed RE2's memory budget");
  });
  return set;
}

RE2::Options rule_regex_options() {
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_max_mem(64 << 20);
  return opts;
}

LazyRegex::LazyRegex(std::string pattern) : p_(std::make_unique<State>()) { p_->pattern = std::move(pattern); }

const RE2& LazyRegex::get() const {
  std::call_once(p_->once, [this] { p_->re = std::make_unique<RE2>(p_->pattern, rule_regex_options()); });
  return *p_->re;
}

const RE2::Set& RuleSet::line_set() const {
  std::call_once(line_set_once_, [this] {
    line_set_ = std::make_unique<RE2::Set>(rule_regex_options(), RE2::UNANCHORED);
    for (int idx : line_rules) line_set_->Add(rules[static_cast<std::size_t>(idx)].pattern, nullptr);
    line_set_compiled_ = line_set_->Compile();
  });
  return *line_set_;
}

}  // namespace gpualert::classify::detail
