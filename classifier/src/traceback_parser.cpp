// A small state machine per rank prefix. Frame and source lines are marked
// structural so that message rules never fire on the job's own source code.
#include "traceback_parser.hpp"

#include <cctype>

namespace gpualert::classify::detail {
namespace {

constexpr std::size_t kMaxFrameText = 16 * 1024;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "pkg.mod.TypeName" followed by ":" (and a message) or the end of the line.
// With BARE the last component must end in Error/Exception/Interrupt (a line outside
// any traceback must look unmistakably like an exception).
std::optional<std::pair<std::string_view, std::string_view>> split_exception(std::string_view s, bool bare) {
  std::size_t i = 0;
  std::size_t last_start = 0;
  for (;;) {
    if (i >= s.size() || !is_ident_start(s[i])) return std::nullopt;
    last_start = i;
    while (i < s.size() && is_ident(s[i])) ++i;
    if (i < s.size() && s[i] == '.' && i + 1 < s.size() && is_ident_start(s[i + 1])) {
      ++i;
      continue;
    }
    break;
  }
  if (i > 200) return std::nullopt;
  const std::string_view type = s.substr(0, i);
  const std::string_view last = s.substr(last_start, i - last_start);
  if (!std::isupper(static_cast<unsigned char>(last[0]))) return std::nullopt;
  if (bare) {
    auto ends = [&](std::string_view suf) { return last.size() > suf.size() && last.substr(last.size() - suf.size()) == suf; };
    if (!ends("Error") && !ends("Exception") && !ends("Interrupt")) return std::nullopt;
  }
  std::string_view rest = s.substr(i);
  if (rest.empty()) return std::make_pair(type, std::string_view{});
  if (rest[0] != ':') return std::nullopt;
  rest.remove_prefix(1);
  while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  // "Type: " followed by a URL-ish "//" is not an exception ("https://...").
  if (starts_with(rest, "//")) return std::nullopt;
  return std::make_pair(type, rest);
}

// An exception type glued straight after a call's closing parenthesis, with a message.
std::optional<std::pair<std::string_view, std::string_view>> glued_exception(std::string_view s) {
  for (std::size_t p = s.find(')'); p != std::string_view::npos && p + 1 < s.size(); p = s.find(')', p + 1))
    if (std::isupper(static_cast<unsigned char>(s[p + 1])))
      if (auto e = split_exception(s.substr(p + 1), true); e && !e->second.empty()) return e;
  return std::nullopt;
}

}  // namespace

LineView strip_rank_prefix(std::string_view line) {
  LineView lv{line, {}};
  std::string_view s = line;
  std::size_t taken = 0;
  for (int round = 0; round < 2; ++round) {
    std::size_t i = 0;
    if (!s.empty() && s[0] == '[') {
      // [rank3]: / [default0]: / [RANK 1] / [1,0]<stderr>:
      const auto close = s.find(']');
      if (close == std::string_view::npos || close > 24) break;
      const std::string_view in = s.substr(1, close - 1);
      std::size_t k = 0;
      while (k < in.size() && std::isalpha(static_cast<unsigned char>(in[k]))) ++k;
      // "[Epoch 3]", "[step 40]": a training counter, not a rank's label.
      std::string word(in.substr(0, k));
      for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (word == "epoch" || word == "step" || word == "iter" || word == "iteration" || word == "batch") break;
      if (k < in.size() && in[k] == ' ') ++k;
      const std::size_t digits_at = k;
      while (k < in.size() && (std::isdigit(static_cast<unsigned char>(in[k])) || in[k] == ',')) ++k;
      if (k != in.size() || k == digits_at) break;
      i = close + 1;
      for (std::string_view tag : {"<stdout>", "<stderr>"})
        if (starts_with(s.substr(i), tag)) i += tag.size();
      if (i < s.size() && s[i] == ':') ++i;
      if (i < s.size() && s[i] == ' ') ++i;
    } else {
      // srun --label: "12: "
      while (i < s.size() && i < 6 && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i == 0 || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') break;
      i += 2;
    }
    taken += i;
    s.remove_prefix(i);
  }
  if (taken > 0) {
    lv.prefix = line.substr(0, taken);
    lv.body = s;
  }
  return lv;
}

TracebackParser::PerRank& TracebackParser::state_for(std::string_view prefix) {
  // Keep the prefix key short and the map bounded (a log with thousands of labels
  // must not grow memory): forget the least recently used rank.
  std::string_view key = prefix;
  while (!key.empty() && (key.back() == ' ' || key.back() == ':')) key.remove_suffix(1);
  auto it = ranks_.find(key);
  if (it == ranks_.end()) {
    if (ranks_.size() >= 256) {
      auto oldest = ranks_.begin();
      for (auto j = ranks_.begin(); j != ranks_.end(); ++j)
        if (j->second.age < oldest->second.age) oldest = j;
      ranks_.erase(oldest);
    }
    it = ranks_.emplace(std::string(key), PerRank{}).first;
  }
  it->second.age = ++tick_;
  return it->second;
}

TracebackParser::Result TracebackParser::feed(const LineView& lv) {
  PerRank& st = state_for(lv.prefix);
  last_ = &st;
  return feed_line(st, lv);
}

TracebackParser::Result TracebackParser::feed_line(PerRank& st, const LineView& lv) {
  Result out;
  const std::string_view s = lv.body;

  // "Original Traceback" is the worker's own traceback that a DataLoader / DataParallel
  // wrapper prints after its "Caught XyzError in ..." message.
  if (starts_with(s, "Traceback (most recent call last)") || starts_with(s, "Original Traceback (most recent call last)")) {
    ++tracebacks_;
    if (st.pending_chain && st.chain >= 0) {
      ++st.chain_pos;
    } else {
      st.chain = next_chain_++;
      st.chain_pos = 0;
    }
    st.pending_chain = false;
    st.state = State::frames;
    st.frames.clear();
    st.after_file = false;
    st.ignored = st.ignored_next;
    st.ignored_next = false;
    out.kind = Kind::structural;
    return out;
  }
  // IPython / Jupyter name the exception in the header ("KeyError    Traceback (most
  // recent call last)") and repeat it, with its message, after the frames. A paste cut
  // before that last line still has the header: take the type from it.
  if (const auto tb = s.find("Traceback (most recent call last)"); tb != std::string_view::npos && tb > 0) {
    std::string_view head = s.substr(0, tb);
    while (!head.empty() && (head.back() == ' ' || head.back() == '\t')) head.remove_suffix(1);
    if (head.size() + 3 <= tb) {  // a wide gap, as IPython pads it
      if (auto e = split_exception(head, true); e && e->second.empty()) {
        ParsedException pe;
        pe.type = std::string(e->first);
        pe.chain = next_chain_++;
        pe.rank = std::string(lv.prefix);
        out.kind = Kind::exception;
        out.exception = std::move(pe);
        return out;
      }
    }
  }
  // Python printed an exception it could not raise (in __del__, an atexit hook, a
  // callback) and carried on: the traceback that follows is not fatal.
  if (starts_with(s, "Exception ignored in")) {
    st.ignored_next = true;
    out.kind = Kind::structural;
    return out;
  }
  if (starts_with(s, "During handling of the above exception") ||
      starts_with(s, "The above exception was the direct cause")) {
    if (st.state == State::after_exception) st.pending_chain = true;
    out.kind = Kind::structural;
    return out;
  }
  // A pasted or cut log may start inside a traceback: a frame line with no header
  // above it still opens one.
  if (st.state != State::frames) {
    std::string_view t = s;
    while (!t.empty() && (t[0] == ' ' || t[0] == '\t')) t.remove_prefix(1);
    if (starts_with(t, "File \"") && t.find("\", line ") != std::string_view::npos && t.size() < s.size()) {
      ++tracebacks_;
      st.chain = next_chain_++;
      st.chain_pos = 0;
      st.pending_chain = false;
      st.state = State::frames;
      st.frames.clear();
      st.ignored = false;
    }
  }
  if (st.state == State::frames) {
    const bool indented = !s.empty() && (s[0] == ' ' || s[0] == '\t');
    // Two streams written at once can glue the exception onto a source line
    // ("    main(args)RuntimeError:  [!] NaN loss with decoder_loss."): it is the exception.
    std::optional<std::pair<std::string_view, std::string_view>> e;
    if (indented) e = glued_exception(s);
    if (!e && !indented) e = split_exception(s, false);
    // A paste that lost its indentation (issue trackers, some editors) still puts the
    // source line right after its "File ..." line: unless it reads as the exception, it is one.
    const bool bare_source = st.after_file && !indented && !starts_with(s, "File \"") && !split_exception(s, false);
    const auto text_at = s.find_first_not_of(" \t");
    st.after_file = text_at != std::string_view::npos && starts_with(s.substr(text_at), "File \"");
    if ((!e && (indented || bare_source || starts_with(s, "File \""))) || starts_with(s, "^") || starts_with(s, "~") ||
        starts_with(s, "...") || starts_with(s, "[Previous line repeated")) {
      // Where it failed matters (torch.load vs a data loader): keep the frames, the
      // innermost ones if a deep recursion overflows the bound.
      if (!starts_with(s, "^") && !starts_with(s, "~")) {
        if (st.frames.size() > kMaxFrameText) st.frames.erase(0, st.frames.size() - kMaxFrameText / 2);
        st.frames.append(s.substr(0, 400)).push_back('\n');
      }
      out.kind = Kind::structural;
      return out;
    }
    if (e) {
      ParsedException pe;
      pe.type = std::string(e->first);
      pe.message = std::string(e->second.substr(0, 2000));
      pe.in_traceback = true;
      pe.chain = st.chain;
      pe.chain_pos = st.chain_pos;
      pe.rank = std::string(lv.prefix);
      pe.ignored = st.ignored;
      pe.frames = std::move(st.frames);
      st.frames.clear();
      st.state = State::after_exception;
      st.since = 0;
      out.kind = Kind::exception;
      out.exception = std::move(pe);
      return out;
    }
    st.state = State::idle;  // the traceback was cut off; read this line normally
  }
  if (s.empty()) return out;
  st.ignored_next = false;
  // Cheap gate before the character-level parse: a bare exception names its kind.
  const bool may_be_exception = s.find("Error") != std::string_view::npos ||
                                s.find("Exception") != std::string_view::npos ||
                                s.find("Interrupt") != std::string_view::npos;
  if (!may_be_exception) {
    if (st.state == State::after_exception && !st.pending_chain && ++st.since > 40) st.state = State::idle;
    return out;
  }
  if (auto e = split_exception(s, true)) {
    ParsedException pe;
    pe.type = std::string(e->first);
    pe.message = std::string(e->second.substr(0, 2000));
    pe.in_traceback = false;
    pe.chain = next_chain_++;
    pe.rank = std::string(lv.prefix);
    out.kind = Kind::exception;
    out.exception = std::move(pe);
    // A bare exception line is not a traceback; do not link later tracebacks to it.
    st.pending_chain = false;
    return out;
  }
  if (st.state == State::after_exception && !st.pending_chain && ++st.since > 40) {
    // Message continuation lines keep the chain window open only briefly.
    st.state = State::idle;
  }
  return out;
}

}  // namespace gpualert::classify::detail
