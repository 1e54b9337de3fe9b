// Applies the rules to each line and keeps bounded evidence.
#include "log_scanner.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "gpualert/common/text.hpp"
#include "line_reader.hpp"
#include "line_selection.hpp"
#include "line_shape.hpp"

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
  // TensorFlow's "...123456: W tensorflow/..." prefix is a warning (its probes for optional
  // libraries: "Could not load dynamic library 'libnvinfer.so.7'"), except for failed
  // ops, which TF logs at that level ("OP_REQUIRES failed ... Permission denied").
  if (contains(body, ": W tensorflow/") && !contains(body, "OP_REQUIRES failed")) return true;
  return contains(body, " WARNING ") || contains(body, " WARN ") || contains(body, "[WARNING]") ||
         contains(body, " WARNING:") || contains(body, "|WARNING|");
}

// A line the program itself logs at INFO level narrates what it tried ("Unable to
// initialize backend 'tpu': ... libtpu.so: cannot open shared object file"); had that
// stopped it, it would have said so at a higher level. Python logging's "INFO:" and
// "INFO:name:" heads, glog's "I1122 ...", and a bracketed "[I]" or "[INFO]" level.
bool looks_like_info(std::string_view body) {
  if (starts_with(body, "INFO:") || starts_with(body, "[INFO]") || contains(body, " [I] ")) return true;
  return body.size() > 5 && body[0] == 'I' && std::isdigit(static_cast<unsigned char>(body[1])) &&
         std::isdigit(static_cast<unsigned char>(body[4])) && body[5] == ' ';
}

// A line that opens by naming an evaluation split ("Test set results: loss 0.903",
// "Validation: loss=0.41"): when the series is the one named "train loss", its plain
// "loss" is that split's, not the training series'.
bool opens_with_eval_split(std::string_view body) {
  static const RE2 split(
      R"(^\W{0,3}(?:(?:\d[\d:./, T-]*|\[[^\]]{0,40}\])\s*[|:-]?\s*)*(?i:test(?:ing)?|val|vali|valid|validation|eval|evaluation|dev)(?i:[ _-]?(?:set|split|data))?(?i:[ _-]?results?)?\b)");
  if (!RE2::PartialMatch(re2::StringPiece(body.data(), body.size()), split)) return false;
  return !contains(body, "train") && !contains(body, "Train") && !contains(body, "TRAIN");
}

// A record whose '|'-parted cells name its split ("Epoch 9 | Validation | Steps: 63 |
// Loss: 74.2", DeepSpeech; "| valid |"): the loss on it is not the training series'.
bool eval_split_cell(std::string_view body) {
  if (body.find('|') == std::string_view::npos) return false;
  static const RE2 cell(R"(\|\s*(?i:validation|validating|valid|val|eval|evaluation|evaluating|test|testing|dev)\s*\|)");
  return RE2::PartialMatch(re2::StringPiece(body.data(), body.size()), cell);
}

// Warnings and INFO narration: by default their matches are not causes.
bool narrates(std::string_view body) { return looks_like_warning(body) || looks_like_info(body); }

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
    thinner_.flush();
    res_.loss.count_unread(loss_.estimate(), loss_nonfinite_.estimate());
    res_.progress.count_unread(steps_.estimate(), saves_.estimate(), throttles_.estimate());
    res_.progress_lines_read = thinner_.read_count();
    res_.progress_lines_skipped = thinner_.skipped_count();
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

LogScanner::LogScanner(const RuleSet& rules, ScanOptions opt)
    : rules_(rules),
      opt_(opt),
      thinner_([this](const PendingLine& p) { read_progress(p); }, [this](const PendingLine& p) { skip_progress(p); }) {
  res_.hits.resize(rules.rules.size());
  for (int i : rules_.progress_rules)
    if (rules_.rules[static_cast<std::size_t>(i)].id == "progress.loss") loss_rule_ = i;
  if (!opt_.reference) matcher_ = rules_.fast_matcher(opt_.build_matcher);
  if (!matcher_) opt_.reference = true;
  if (!opt_.reference) scratch_ = std::make_unique<FastMatcher::Scratch>(*matcher_);
  forced_.assign(progress_cues().size(), 0);
}

Hit LogScanner::make_hit(int rule, std::uint64_t lineno, std::string_view text, int section) const {
  Hit h;
  h.rule = rule;
  h.line = lineno;
  h.section = section;
  h.text.assign(text.substr(0, kCiteBytes * 2));  // made printable in result(): only kept hits pay
  return h;
}

void LogScanner::capture(const Rule& r, std::string_view subject, Hit& h) const {
  const int n = r.re.get().NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(n) + 1);
  if (!r.re.get().Match(re2::StringPiece(subject.data(), subject.size()), 0, subject.size(), RE2::UNANCHORED,
                   sub.data(), n + 1))
    return;
  h.facts.emplace_back("match", one_line(std::string_view(sub[0].data(), sub[0].size()), 160));
  for (const auto& [idx, name] : r.re.get().CapturingGroupNames()) {
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
    if (!RE2::PartialMatch(subject, r.re.get())) continue;
    if (r.frames_re && !RE2::PartialMatch(e.frames, r.frames_re.get())) continue;
    if (r.frames_unless_re && RE2::PartialMatch(e.frames, r.frames_unless_re.get())) continue;
    matched.push_back(idx);
    silenced.insert(silenced.end(), r.override_idx.begin(), r.override_idx.end());
  }
  for (int idx : matched) {
    if (std::find(silenced.begin(), silenced.end(), idx) != silenced.end()) continue;
    const Rule& r = rules_.rules[static_cast<std::size_t>(idx)];
    Hit h = make_hit(idx, lineno, text, section_);
    h.signal = r.signal;
    h.facts.emplace_back("exception", e.type);
    if (!e.message.empty()) h.facts.emplace_back("message", one_line(e.message, 160));
    if (r.has_captures() || r.role == Role::signal) capture(r, subject, h);
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
  if (res_.sections.size() < ScanResult::kMaxSections) res_.sections.emplace_back(one_line(label, 160));
  section_ = static_cast<int>(res_.sections.size()) - 1;
  // A task number keys the section like a rank prefix would (srun's task id is the rank).
  const auto task = label.rfind(", task ");
  section_key_ = task != std::string_view::npos ? "[task " + std::string(label.substr(task + 7)) + "]"
                                                : "[section " + std::to_string(section_) + "]";
  return true;
}

namespace {

// The carriage-return segments of a line worth reading (a progress bar's redraws).
template <typename F>
void each_segment(std::string_view text, F&& f) {
  if (text.find('\r') == std::string_view::npos) {
    f(text);
    return;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto cr = text.find('\r', start);
    const std::string_view seg = text.substr(start, cr == std::string_view::npos ? std::string_view::npos : cr - start);
    if (seg.find_first_not_of(" \t") != std::string_view::npos) f(seg);
    if (cr == std::string_view::npos) break;
    start = cr + 1;
  }
}

bool blank(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != ' ' && s[0] != '\t') return false;
  return s.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

// Issue trackers, forums and some editors turn ' and " into typographic quotes
// (U+2018/2019/201C/201D); the rules are written with ASCII ones.
std::string_view LogScanner::ascii_quotes(std::string_view text, std::string& buf) const {
  if (text.find("\xE2\x80") == std::string_view::npos) return text;
  buf.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i + 2 < text.size() && text[i] == '\xE2' && text[i + 1] == '\x80') {
      const char c = text[i + 2];
      if (c == '\x98' || c == '\x99' || c == '\x9C' || c == '\x9D') {
        buf.push_back(c == '\x98' || c == '\x99' ? '\'' : '"');
        i += 2;
        continue;
      }
    }
    buf.push_back(text[i]);
  }
  return buf;
}

std::uint64_t LogScanner::block(std::string_view lines, std::uint64_t first) {
  matches_.clear();
  // Should the engine fail on a block, that block is read the reference way (every line
  // in full), after the progress lines held so far, to keep their order.
  const bool was_reference = opt_.reference;
  if (!opt_.reference && !matcher_->scan(lines, *scratch_, matches_)) {
    thinner_.flush();
    opt_.reference = true;
  }
  if (!opt_.reference &&
      !std::is_sorted(matches_.begin(), matches_.end(), [](const MatchEnd& a, const MatchEnd& b) { return a.end < b.end; }))
    std::stable_sort(matches_.begin(), matches_.end(), [](const MatchEnd& a, const MatchEnd& b) { return a.end < b.end; });
  const auto& cues = progress_cues();
  // Where the last lines of the block start, for the tail ring.
  std::array<std::pair<std::size_t, std::size_t>, ScanResult::kTailLines> last{};
  std::size_t nlast = 0;
  std::size_t mi = 0;
  std::size_t pos = 0;
  std::uint64_t lineno = first;
  const bool head = bytes_seen_ < kDenseHeadBytes;
  bytes_seen_ += lines.size();
  while (pos < lines.size()) {
    const void* nl = std::memchr(lines.data() + pos, '\n', lines.size() - pos);
    const std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - lines.data()) : lines.size();
    const std::size_t next = nl ? end + 1 : lines.size();
    std::string_view text = lines.substr(pos, end - pos);
    if (text.size() > kMaxLineBytes) {
      text = text.substr(0, kMaxLineBytes);  // a line longer than the cap keeps only its head
      ++long_lines_;
    }
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // CRLF logs

    // What the matcher saw on this line.
    bool trigger = false, keep = head;
    std::uint16_t cue_bits = 0;
    line_ids_.clear();
    for (; mi < matches_.size() && matches_[mi].end <= next; ++mi) {
      const unsigned id = matches_[mi].id;
      if (id >= kTriggerIdBase) {
        trigger = true;
      } else if (id >= kCueIdBase) {
        const std::size_t c = id - kCueIdBase;
        switch (cues[c].kind) {
          case CueKind::step: cue_bits |= kCueStep; break;
          case CueKind::stamp: cue_bits |= kCueStamp; break;
          case CueKind::marker: cue_bits |= kCueMarker; break;
          case CueKind::save: cue_bits |= kCueSave; break;
          case CueKind::throttle: cue_bits |= kCueThrottle; break;
          case CueKind::nonfinite: cue_bits |= kCueNonfinite; break;
        }
        // The first occurrences of a marker are always read (a resume, the first save).
        if (cues[c].kind != CueKind::step && cues[c].kind != CueKind::stamp && !keep && forced_[c] < 64) {
          ++forced_[c];
          keep = true;
        }
      } else {
        const int idx = rules_.line_rules[id];
        const Role role = rules_.rules[static_cast<std::size_t>(idx)].role;
        if (role == Role::progress) cue_bits |= kCueLoss;
        else if (role == Role::done) cue_bits |= kCueDone;
        else if (std::find(line_ids_.begin(), line_ids_.end(), idx) == line_ids_.end()) line_ids_.push_back(idx);
      }
    }
    // A metrics table: its header (a step-cued line) is always read, and lines shaped
    // like its rows become loss lines. Rows still held are read against the header they
    // were printed under.
    if (!(cue_bits & kCueLoss) && (opt_.reference || (cue_bits & kCueStep)) && TableReader::looks_like_header(text)) {
      if (!opt_.reference) thinner_.flush();
      table_.set_header(text);
      keep = true;
    } else if (!table_.active() && !(cue_bits & kCueLoss) && TableReader::headerless_yolo_row(text)) {
      // YOLO's results.txt: rows without a header; the first one sets the columns.
      if (!opt_.reference) thinner_.flush();
      table_.set_header(TableReader::kYoloResultsHeader);
      if (!opt_.reference) cue_bits |= kCueLoss | kCueStep;
    } else if (!opt_.reference && table_.maybe_row(text)) {
      cue_bits |= kCueLoss | kCueStep;
    }
    // The digit-shaped cues, looked for only where the matcher has not already marked the
    // line as progress (a progress line's date is not needed to thin it).
    if (!opt_.reference && !(cue_bits & (kCueStep | kCueLoss | kCueDone))) cue_bits |= shape_cues(text);
    // Rules the matcher cannot select are tried on every line.
    if (!opt_.reference && rules_.slow_set) {
      confirmed_.clear();
      if (text.find('\r') != std::string_view::npos) {
        for (int idx : rules_.slow_line_rules) line_ids_.push_back(idx);  // segment() confirms each
      } else if (rules_.slow_set->Match(re2::StringPiece(text.data(), text.size()), &confirmed_)) {
        for (int m : confirmed_) line_ids_.push_back(rules_.slow_line_rules[static_cast<std::size_t>(m)]);
      }
    }

    res_.lines = lineno;
    if (!blank(text)) res_.last_nonempty_line = lineno;
    res_.bare.feed(text, lineno);
    res_.records.feed(text, lineno, opt_.reference || (cue_bits & kCueNonfinite));
    last[nlast % last.size()] = {pos, text.size()};
    ++nlast;

    if (opt_.reference || trigger || !line_ids_.empty() || lineno <= dense_until_) {
      read_line(text, lineno, opt_.reference ? std::uint16_t{kCueAll} : cue_bits, keep || opt_.reference);
    } else if (cue_bits) {
      queue_progress(text, lineno, cue_bits, keep);
    }
    pos = next;
    ++lineno;
  }
  // The tail ring: the block's last lines, oldest first.
  const std::size_t n = std::min(nlast, last.size());
  for (std::size_t k = nlast - n; k < nlast; ++k) {
    const auto [at, len] = last[k % last.size()];
    auto& slot = ring_[ring_next_];
    slot.first = lineno - (nlast - k);
    slot.second.assign(lines.substr(at, std::min(len, kCiteBytes * 2)));
    ring_next_ = (ring_next_ + 1) % ring_.size();
  }
  thinner_.own_all();
  opt_.reference = was_reference;
  return lineno - first;
}

// A line read in full: tracebacks, rules, sections, then its progress (queued).
void LogScanner::read_line(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep) {
  const std::string_view raw = text;
  text = ascii_quotes(text, quotes_);
  // The matcher saw the typographic quotes: RE2 decides which rules match the rewritten
  // line, and its text lives in a reused buffer, not in the block.
  const bool rewritten = text.data() != raw.data();
  if (rewritten) cues = kCueAll;
  line_rewritten_ = rewritten;
  each_segment(text, [&](std::string_view seg) {
    if (rewritten || opt_.reference) {
      // Every rule, by RE2 (the reference behaviour).
      confirmed_.clear();
      line_ids_.clear();
      if (!rules_.line_rules.empty()) rules_.line_set().Match(re2::StringPiece(seg.data(), seg.size()), &confirmed_);
      for (int m : confirmed_) {
        const int idx = rules_.line_rules[static_cast<std::size_t>(m)];
        const Role role = rules_.rules[static_cast<std::size_t>(idx)].role;
        if (role != Role::progress && role != Role::done) line_ids_.push_back(idx);
      }
    }
    segment(seg, lineno, cues, keep);
  });
  line_rewritten_ = false;
}

void LogScanner::segment(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep) {
  if (section_header(text)) return;
  LineView lv = strip_rank_prefix(text);
  if (lv.prefix.empty() && section_ >= 0) lv.prefix = section_key_;  // each task's traceback apart
  const auto tb = tb_.feed(lv);
  res_.launcher.feed(lv.body, lineno);
  if (tb_.busy() || res_.launcher.busy()) dense_until_ = lineno + kDenseAfter;
  if (tb.kind == TracebackParser::Kind::structural) return;  // frames and source lines

  std::vector<Hit> found;
  if (tb.exception) exception_hits(*tb.exception, lineno, text, found);

  if (!line_ids_.empty()) {
    // Confirm what the matcher saw (it may see more than RE2 would), on this segment.
    confirmed_.clear();
    const re2::StringPiece sp(text.data(), text.size());
    for (int i : line_ids_)
      if (RE2::PartialMatch(sp, rules_.rules[static_cast<std::size_t>(i)].re.get())) confirmed_.push_back(i);
    // A more precise rule can silence a broader one on the same line.
    std::vector<int> silenced;
    for (int i : confirmed_)
      for (int o : rules_.rules[static_cast<std::size_t>(i)].override_idx) silenced.push_back(o);
    for (int i : confirmed_) {
      if (std::find(silenced.begin(), silenced.end(), i) != silenced.end()) continue;
      const Rule& r = rules_.rules[static_cast<std::size_t>(i)];
      Hit h = make_hit(i, lineno, text, section_);
      h.signal = r.signal;
      if (r.has_captures()) capture(r, text, h);
      found.push_back(std::move(h));
    }
  }
  if (!found.empty()) {
    const bool warning = narrates(lv.body);
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
    for (auto& h : found) {
      const Rule& r = rules_.rules[static_cast<std::size_t>(h.rule)];
      h.on_warning = warning && !r.on_warnings;
      if (r.role == Role::cause) h.line_classes = line_classes;
      res_.hits[static_cast<std::size_t>(h.rule)].add(std::move(h));
    }
  }
  if (opt_.reference || cues) queue_progress(text, lineno, cues, keep);
}

void LogScanner::queue_progress(std::string_view text, std::uint64_t lineno, std::uint16_t cues, bool keep) {
  PendingLine p;
  p.lineno = lineno;
  p.cues = opt_.reference ? std::uint16_t{kCueAll} : cues;
  p.keep = keep || opt_.reference;
  p.section = section_;
  if (section_ >= 0) p.section_key = section_key_;
  p.set(text);
  if (line_rewritten_) p.own();
  if (opt_.reference) read_progress(p);  // in order, nothing thinned
  else thinner_.push(std::move(p));
}

// The progress part of a line: loss values, completion markers, the progress tracker.
void LogScanner::read_progress(const PendingLine& p) {
  const std::string_view text = ascii_quotes(p.view(), pquotes_);
  const auto losses0 = res_.loss.count(), nonfinite0 = res_.loss.nonfinite();
  const auto steps0 = res_.progress.progress_lines, saves0 = res_.progress.ckpt_saves,
             throttles0 = res_.progress.throttle_active_n;
  each_segment(text, [&](std::string_view seg) {
    LineView lv = strip_rank_prefix(seg);
    if (lv.prefix.empty() && !p.section_key.empty()) lv.prefix = p.section_key;
    bool has_loss = false;
    const re2::StringPiece sp(seg.data(), seg.size());
    if (p.cues & kCueLoss) {
      for (int i : rules_.progress_rules) {
        const Rule& r = rules_.rules[static_cast<std::size_t>(i)];
        if (!RE2::PartialMatch(sp, r.re.get())) continue;
        Hit h = make_hit(i, p.lineno, seg, p.section);
        capture(r, seg, h);
        const auto* key = find_fact(h.facts, "key");
        const auto* val = find_fact(h.facts, "value");
        if (!key || !val) continue;
        const bool eval_line = (res_.loss.named_train() && opens_with_eval_split(lv.body)) || eval_split_cell(lv.body);
        if (!res_.loss.add(eval_line ? "eval " + *key : *key, *val, p.lineno)) continue;
        res_.last_progress_line = std::max(res_.last_progress_line, p.lineno);
        has_loss = true;
        h.on_warning = !r.on_warnings && looks_like_warning(lv.body);
        res_.hits[static_cast<std::size_t>(i)].add(std::move(h));
      }
    }
    if (p.cues & kCueDone) {
      for (int i : rules_.done_rules) {
        const Rule& r = rules_.rules[static_cast<std::size_t>(i)];
        if (!RE2::PartialMatch(sp, r.re.get())) continue;
        Hit h = make_hit(i, p.lineno, seg, p.section);
        if (r.has_captures()) capture(r, seg, h);
        h.on_warning = !r.on_warnings && looks_like_warning(lv.body);
        if (r.marks_progress) res_.last_progress_line = std::max(res_.last_progress_line, p.lineno);
        res_.hits[static_cast<std::size_t>(i)].add(std::move(h));
      }
    }
    if ((p.cues & kCueLoss) && !has_loss && loss_rule_ >= 0) {
      if (const auto r = table_.row(lv.body)) {
        res_.progress.table_counters(r->epoch, r->epoch_total, r->step, r->step_total, lv.body, p.lineno);
        if (res_.loss.add(r->loss_key, r->loss_value, p.lineno)) {
          res_.last_progress_line = std::max(res_.last_progress_line, p.lineno);
          has_loss = true;
          // Cited as the loss rule's own finds are: the row, its column's name and value.
          const int i = loss_rule_;
          Hit h = make_hit(i, p.lineno, seg, p.section);
          h.facts = {{"key", r->loss_key}, {"value", r->loss_value}};
          res_.hits[static_cast<std::size_t>(i)].add(std::move(h));
        }
      }
    }
    const std::uint64_t step0 = res_.progress.max_step;
    res_.progress.feed(lv.body, lv.prefix, p.lineno, has_loss);
    if (has_loss && res_.progress.max_step != step0) res_.loss.step_of_last(p.lineno, res_.progress.max_step);
    res_.last_progress_line = std::max(res_.last_progress_line, res_.progress.last_progress_line);
    if (res_.progress.restarted_at == p.lineno && res_.loss.run_start_line() != p.lineno) res_.loss.restart(p.lineno);
  });
  // What lines like this one turn out to count, for the estimate of those left out.
  auto tally = [](Tally& t, std::uint64_t before, std::uint64_t after) {
    ++t.read;
    t.counted += after - before;
  };
  if (p.cues & kCueLoss) {
    tally(loss_, losses0 - nonfinite0, res_.loss.count() - res_.loss.nonfinite());
    tally(loss_nonfinite_, nonfinite0, res_.loss.nonfinite());
  }
  if (p.cues & (kCueStep | kCueLoss)) tally(steps_, steps0, res_.progress.progress_lines);
  if (p.cues & kCueSave) tally(saves_, saves0, res_.progress.ckpt_saves);
  if (p.cues & kCueThrottle) tally(throttles_, throttles0, res_.progress.throttle_active_n);
}

// A progress line left out of a long steady stretch: counted, not read.
void LogScanner::skip_progress(const PendingLine& p) {
  if (p.cues & kCueLoss) {
    ++loss_.unread;
    ++loss_nonfinite_.unread;
    if (!rules_.progress_rules.empty()) ++res_.hits[static_cast<std::size_t>(rules_.progress_rules.front())].count;
  }
  if (p.cues & (kCueStep | kCueLoss)) ++steps_.unread;
  if (p.cues & kCueSave) ++saves_.unread;
  if (p.cues & kCueThrottle) ++throttles_.unread;
}

}  // namespace gpualert::classify::detail
