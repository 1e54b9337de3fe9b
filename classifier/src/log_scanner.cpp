// Applies the rules to each line and keeps bounded evidence.
#include "log_scanner.hpp"

#include <algorithm>
#include <cctype>

#include "gpualert/common/text.hpp"

namespace gpualert::classify::detail {
namespace {

constexpr std::size_t kCiteBytes = 300;

bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Warnings mention failure words without anything having failed ("UserWarning: ...
// out of memory, retrying"), so by default their matches are not causes.
bool looks_like_warning(std::string_view body) {
  if (contains(body, "Warning") || contains(body, "warnings.warn")) return true;
  if (starts_with(body, "WARN") || starts_with(body, "[W ") || starts_with(body, "[W]") ||
      starts_with(body, "[WARN") || starts_with(body, "W ")) return true;
  if (body.size() > 5 && body[0] == 'W' && std::isdigit(static_cast<unsigned char>(body[1])) &&
      std::isdigit(static_cast<unsigned char>(body[4]))) return true;  // glog "W1122 ..."
  // Not TensorFlow's "...123456: W tensorflow/..." prefix: TF logs failed ops
  // ("OP_REQUIRES failed ... Permission denied") at that level.
  return contains(body, " WARNING ") || contains(body, " WARN ") || contains(body, "[WARNING]") ||
         contains(body, " WARNING:") || contains(body, "|WARNING|");
}

// "signame2" -> "signame": a trailing number lets one pattern name a fact twice.
std::string fact_name(const std::string& group) {
  std::size_t n = group.size();
  while (n > 0 && std::isdigit(static_cast<unsigned char>(group[n - 1]))) --n;
  return group.substr(0, n);
}

int signal_from_name(std::string_view s) {
  struct { std::string_view name; int sig; } const k[] = {
      {"Killed", 9}, {"SIGKILL", 9}, {"Segmentation fault", 11}, {"SIGSEGV", 11},
      {"Bus error", 7}, {"SIGBUS", 7}, {"Aborted", 6}, {"SIGABRT", 6},
      {"Terminated", 15}, {"SIGTERM", 15}, {"Floating point exception", 8}, {"SIGFPE", 8},
      {"Illegal instruction", 4}, {"SIGILL", 4}, {"Hangup", 1}, {"SIGHUP", 1},
      {"Quit", 3}, {"SIGQUIT", 3}, {"SIGINT", 2}, {"Interrupt", 2}};
  for (const auto& e : k)
    if (s == e.name) return e.sig;
  return 0;
}

// An exit status as printed: -N (Python's convention) or 128+N (a shell's).
int signal_from_exitcode(std::string_view s) {
  int v = 0;
  bool neg = false;
  std::size_t i = 0;
  if (!s.empty() && s[0] == '-') { neg = true; i = 1; }
  if (i >= s.size() || s.size() - i > 4) return 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return 0;
    v = v * 10 + (s[i] - '0');
  }
  if (neg) return v > 0 && v < 65 ? v : 0;
  return v > 128 && v < 128 + 65 ? v - 128 : 0;
}

}  // namespace

void RuleHits::add(Hit h) {
  ++count;
  if (first.size() < kKeep) {
    first.push_back(std::move(h));
    return;
  }
  last.push_back(std::move(h));
  if (last.size() > kKeep) last.pop_front();
}

std::vector<const Hit*> RuleHits::all() const {
  std::vector<const Hit*> v;
  for (const auto& h : first) v.push_back(&h);
  for (const auto& h : last) v.push_back(&h);
  return v;
}

const std::string* find_fact(const Facts& facts, std::string_view key) {
  for (const auto& [k, v] : facts)
    if (k == key && !v.empty()) return &v;
  return nullptr;
}

std::string fill_template(std::string_view t, const Facts& facts) {
  std::string out;
  std::size_t i = 0;
  while (i < t.size()) {
    if (t.substr(i, 2) == "[[") {
      const auto close = t.find("]]", i + 2);
      if (close != std::string_view::npos) {
        const std::string_view seg = t.substr(i + 2, close - i - 2);
        bool ok = true;
        for (std::size_t p = seg.find('{'); p != std::string_view::npos; p = seg.find('{', p + 1)) {
          const auto q = seg.find('}', p);
          if (q == std::string_view::npos) break;
          if (!find_fact(facts, seg.substr(p + 1, q - p - 1))) { ok = false; break; }
        }
        if (ok) out += fill_template(seg, facts);
        i = close + 2;
        continue;
      }
    }
    if (t[i] == '{') {
      const auto q = t.find('}', i);
      if (q != std::string_view::npos) {
        const auto* v = find_fact(facts, t.substr(i + 1, q - i - 1));
        out += v ? *v : std::string("?");
        i = q + 1;
        continue;
      }
    }
    out.push_back(t[i++]);
  }
  return out;
}

ScanResult& LogScanner::result() {
  if (!finished_) {
    for (auto& rh : res_.hits) {
      for (auto& h : rh.first) h.text = one_line(h.text, kCiteBytes);
      for (auto& h : rh.last) h.text = one_line(h.text, kCiteBytes);
    }
    finished_ = true;
  }
  res_.tail.clear();
  for (std::size_t i = 0; i < ring_.size(); ++i) {
    const auto& [n, t] = ring_[(ring_next_ + i) % ring_.size()];
    if (n) res_.tail.push_back(Citation{n, one_line(t, kCiteBytes), "tail"});
  }
  return res_;
}

LogScanner::LogScanner(const RuleSet& rules) : rules_(rules) { res_.hits.resize(rules.rules.size()); }

Hit LogScanner::make_hit(int rule, std::uint64_t lineno, std::string_view text) const {
  Hit h;
  h.rule = rule;
  h.line = lineno;
  h.section = section_;
  h.text.assign(text.substr(0, kCiteBytes * 2));  // made printable in result(): only kept hits pay
  return h;
}

void LogScanner::capture(const Rule& r, std::string_view subject, Hit& h) const {
  const int n = r.re->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(n) + 1);
  if (!r.re->Match(re2::StringPiece(subject.data(), subject.size()), 0, subject.size(), RE2::UNANCHORED,
                   sub.data(), n + 1))
    return;
  h.facts.emplace_back("match", one_line(std::string_view(sub[0].data(), sub[0].size()), 160));
  for (const auto& [idx, name] : r.re->CapturingGroupNames()) {
    const auto& sp = sub[static_cast<std::size_t>(idx)];
    if (sp.data() == nullptr || sp.empty()) continue;
    const std::string key = fact_name(name);
    if (find_fact(h.facts, key)) continue;
    h.facts.emplace_back(key, one_line(std::string_view(sp.data(), sp.size()), 160));
  }
  if (r.role == Role::signal && !h.signal) {
    if (const auto* s = find_fact(h.facts, "signal")) h.signal = signal_from_exitcode("-" + *s);
    else if (const auto* e = find_fact(h.facts, "exitcode")) h.signal = signal_from_exitcode(*e);
    else if (const auto* nm = find_fact(h.facts, "signame")) h.signal = signal_from_name(*nm);
  }
}

void LogScanner::exception_hits(const ParsedException& e, std::uint64_t lineno, std::string_view text,
                                std::vector<Hit>& out) {
  ++res_.exceptions;
  const std::string subject = e.message.empty() ? e.type : e.type + ": " + e.message;
  const std::size_t before = out.size();
  int best = -1;
  std::vector<int> matched, silenced;
  for (int idx : rules_.exception_rules) {
    const Rule& r = rules_.rules[static_cast<std::size_t>(idx)];
    if (!RE2::PartialMatch(subject, *r.re)) continue;
    if (r.frames_re && !RE2::PartialMatch(e.frames, *r.frames_re)) continue;
    matched.push_back(idx);
    silenced.insert(silenced.end(), r.override_idx.begin(), r.override_idx.end());
  }
  for (int idx : matched) {
    if (std::find(silenced.begin(), silenced.end(), idx) != silenced.end()) continue;
    const Rule& r = rules_.rules[static_cast<std::size_t>(idx)];
    Hit h = make_hit(idx, lineno, text);
    h.signal = r.signal;
    h.facts.emplace_back("exception", e.type);
    if (!e.message.empty()) h.facts.emplace_back("message", one_line(e.message, 160));
    if (r.has_captures || r.role == Role::signal) capture(r, subject, h);
    if (r.role == Role::cause) best = std::max(best, r.priority);
    out.push_back(std::move(h));
  }
  // In a chain, a generic exception printed after an earlier one is usually the
  // wrapper ("KeyError ... During handling ... RuntimeError"): the first is the cause.
  const bool later_in_chain = e.in_traceback && e.chain_pos > 0 &&
                              std::find(chain_seen_.begin(), chain_seen_.end(), e.chain) != chain_seen_.end();
  if ((later_in_chain && best < 40) || e.ignored)
    for (std::size_t i = before; i < out.size(); ++i) out[i].demoted = true;
  if (e.in_traceback && std::find(chain_seen_.begin(), chain_seen_.end(), e.chain) == chain_seen_.end()) {
    chain_seen_.push_back(e.chain);
    if (chain_seen_.size() > 64) chain_seen_.erase(chain_seen_.begin());
  }
}

// "==> <label> <==": the Slurm helper's per-task header ("==> f.log: srun #0, node n1,
// task 3 <=="), also what `tail` prints between files. Later lines belong to it.
bool LogScanner::section_header(std::string_view text) {
  if (text.size() < 9 || text.substr(0, 4) != "==> " || text.substr(text.size() - 4) != " <==") return false;
  std::string_view label = text.substr(4, text.size() - 8);
  if (const auto colon = label.find(": "); colon != std::string_view::npos && label.find(", node ") != std::string_view::npos)
    label = label.substr(colon + 2);  // the task, not the spool file name
  if (res_.sections.size() < ScanResult::kMaxSections) res_.sections.emplace_back(label.substr(0, 160));
  section_ = static_cast<int>(res_.sections.size()) - 1;
  // A task number keys the section like a rank prefix would (srun's task id is the rank).
  const auto task = label.rfind(", task ");
  section_key_ = task != std::string_view::npos ? "[task " + std::string(label.substr(task + 7)) + "]"
                                                : "[section " + std::to_string(section_) + "]";
  return true;
}

void LogScanner::line(std::string_view text, std::uint64_t lineno) {
  res_.lines = lineno;
  if (text.find_first_not_of(" \t") != std::string_view::npos) res_.last_nonempty_line = lineno;
  auto& slot = ring_[ring_next_];
  slot.first = lineno;
  slot.second.assign(text.substr(0, kCiteBytes * 2));
  ring_next_ = (ring_next_ + 1) % ring_.size();

  // Issue trackers, forums and some editors turn ' and " into typographic quotes
  // (U+2018/2019/201C/201D); the rules are written with ASCII ones.
  if (text.find("\xE2\x80") != std::string_view::npos) {
    quotes_.clear();
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (i + 2 < text.size() && text[i] == '\xE2' && text[i + 1] == '\x80') {
        const char c = text[i + 2];
        if (c == '\x98' || c == '\x99' || c == '\x9C' || c == '\x9D') {
          quotes_.push_back(c == '\x98' || c == '\x99' ? '\'' : '"');
          i += 2;
          continue;
        }
      }
      quotes_.push_back(text[i]);
    }
    text = quotes_;
  }

  // Progress bars (tqdm, Keras, Lightning) redraw with a bare carriage return: each
  // redraw is its own record with its own numbers, so read them one by one.
  if (text.find('\r') == std::string_view::npos) {
    segment(text, lineno);
    return;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto cr = text.find('\r', start);
    const std::string_view seg = text.substr(start, cr == std::string_view::npos ? std::string_view::npos : cr - start);
    if (seg.find_first_not_of(" \t") != std::string_view::npos) segment(seg, lineno);
    if (cr == std::string_view::npos) break;
    start = cr + 1;
  }
}

void LogScanner::segment(std::string_view text, std::uint64_t lineno) {
  if (section_header(text)) return;
  LineView lv = strip_rank_prefix(text);
  if (lv.prefix.empty() && section_ >= 0) lv.prefix = section_key_;  // each task's traceback apart
  const auto tb = tb_.feed(lv);
  res_.launcher.feed(lv.body, lineno);
  if (tb.kind == TracebackParser::Kind::structural) return;  // frames and source lines

  std::vector<Hit> found;
  if (tb.exception) exception_hits(*tb.exception, lineno, text, found);

  matched_.clear();
  if (rules_.line_set && !rules_.line_rules.empty())
    rules_.line_set->Match(re2::StringPiece(text.data(), text.size()), &matched_);
  if (!matched_.empty()) {
    std::vector<int> idxs;
    for (int m : matched_) idxs.push_back(rules_.line_rules[static_cast<std::size_t>(m)]);
    // A more precise rule can silence a broader one on the same line.
    std::vector<int> silenced;
    for (int i : idxs)
      for (int o : rules_.rules[static_cast<std::size_t>(i)].override_idx) silenced.push_back(o);
    for (int i : idxs) {
      if (std::find(silenced.begin(), silenced.end(), i) != silenced.end()) continue;
      const Rule& r = rules_.rules[static_cast<std::size_t>(i)];
      Hit h = make_hit(i, lineno, text);
      h.signal = r.signal;
      if (r.has_captures || r.role == Role::progress) capture(r, text, h);
      found.push_back(std::move(h));
    }
  }
  if (found.empty()) {
    res_.progress.feed(lv.body, lv.prefix, lineno, false);
    return;
  }

  const bool warning = looks_like_warning(lv.body);
  // The cause classes on this line, best first: the winner's "broader" classes.
  std::vector<std::pair<int, std::string>> classes;
  for (const auto& h : found) {
    const Rule& r = rules_.rules[static_cast<std::size_t>(h.rule)];
    if (r.role != Role::cause || h.demoted) continue;
    if (std::none_of(classes.begin(), classes.end(), [&](const auto& c) { return c.second == r.cls; }))
      classes.emplace_back(r.priority, r.cls);
  }
  std::stable_sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> line_classes;
  for (auto& c : classes) line_classes.push_back(c.second);

  bool has_loss = false;
  for (auto& h : found) {
    const Rule& r = rules_.rules[static_cast<std::size_t>(h.rule)];
    h.on_warning = warning && !r.on_warnings;
    if (r.role == Role::progress) {
      const auto* key = find_fact(h.facts, "key");
      const auto* val = find_fact(h.facts, "value");
      if (!key || !val || !res_.loss.add(*key, *val, lineno)) continue;
      res_.last_progress_line = lineno;
      has_loss = true;
    } else if (r.role == Role::done) {
      res_.last_progress_line = lineno;
    } else if (r.role == Role::cause) {
      h.line_classes = line_classes;
    }
    res_.hits[static_cast<std::size_t>(h.rule)].add(std::move(h));
  }
  res_.progress.feed(lv.body, lv.prefix, lineno, has_loss);
}

}  // namespace gpualert::classify::detail
