#include "table_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpualert::classify::detail {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Cells parted by '|' (empty ones at the ends dropped), by tabs or runs of two or more
// spaces (names may hold one space: "Training Loss"), or, failing those, by blanks.
std::vector<std::string_view> cells(std::string_view line, bool piped, bool wide_gaps) {
  std::vector<std::string_view> out;
  line = trim(line);
  if (piped) {
    std::size_t from = 0;
    while (from <= line.size()) {
      std::size_t bar = line.find('|', from);
      if (bar == std::string_view::npos) bar = line.size();
      out.push_back(trim(line.substr(from, bar - from)));
      from = bar + 1;
    }
    if (!out.empty() && out.front().empty()) out.erase(out.begin());
    if (!out.empty() && out.back().empty()) out.pop_back();
    return out;
  }
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t j = i;
    while (j < line.size()) {
      if (line[j] == '\t') break;
      if (line[j] == ' ' && (!wide_gaps || (j + 1 < line.size() && (line[j + 1] == ' ' || line[j + 1] == '\t')))) break;
      ++j;
    }
    out.push_back(line.substr(i, j - i));
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    i = j;
  }
  return out;
}

bool has_wide_gap(std::string_view line) {
  line = trim(line);
  return line.find('\t') != std::string_view::npos || line.find("  ") != std::string_view::npos;
}

// "1.234", "-3e-05", "2.61G", "85%", "nan", "3/100", "00:10", "640:" (YOLO's last column).
bool numeric(std::string_view c) {
  if (!c.empty() && c.back() == ':') c.remove_suffix(1);
  if (c.empty()) return false;
  const std::string l = lower(c);
  if (l == "nan" || l == "inf" || l == "-inf" || l == "+inf" || l == "-nan") return true;
  std::size_t i = 0;
  if (c[i] == '-' || c[i] == '+') ++i;
  const std::size_t digits_from = i;
  while (i < c.size() && (std::isdigit(static_cast<unsigned char>(c[i])) || c[i] == '.')) ++i;
  if (i == digits_from) return false;
  if (i < c.size() && (c[i] == 'e' || c[i] == 'E') && i + 1 < c.size()) {
    std::size_t k = i + 1;
    if (c[k] == '-' || c[k] == '+') ++k;
    if (k < c.size() && std::isdigit(static_cast<unsigned char>(c[k]))) {
      i = k;
      while (i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]))) ++i;
    }
  }
  if (i < c.size() && c[i] == ':' && i > digits_from) {  // a clock: fastai's "00:10", "1:02:03"
    while (i + 2 < c.size() && c[i] == ':' && std::isdigit(static_cast<unsigned char>(c[i + 1])) &&
           std::isdigit(static_cast<unsigned char>(c[i + 2])))
      i += 3;
    return i == c.size();
  }
  if (i < c.size() && c[i] == '/') {  // a counter
    ++i;
    const std::size_t t = i;
    while (i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]))) ++i;
    return i > t && i == c.size();
  }
  // A unit of at most three letters (or a percent sign) may follow.
  const std::size_t unit = c.size() - i;
  if (unit > 3) return false;
  for (; i < c.size(); ++i)
    if (!std::isalpha(static_cast<unsigned char>(c[i])) && c[i] != '%') return false;
  return true;
}

// spaCy heads its epoch and step columns "E" and "#".
bool is_epoch_name(const std::string& n) { return n == "epoch" || n == "epochs" || n == "e"; }

bool is_counter_name(const std::string& n) {
  return is_epoch_name(n) || n == "step" || n == "steps" || n == "iter" || n == "iteration" || n == "iterations" ||
         n == "global step" || n == "global_step" || n == "#";
}

bool is_training_loss_name(const std::string& n) {
  if (n.find("loss") == std::string::npos) return false;
  for (std::string_view e : {"val", "valid", "eval", "test", "dev"})
    if (n.rfind(e, 0) == 0) return false;
  return true;
}

// Digits of a cell: "3/100" -> 3 and 100.
void counter(std::string_view c, std::int64_t& n, std::uint64_t& total) {
  const std::string s(c);
  char* end = nullptr;
  n = std::strtoll(s.c_str(), &end, 10);
  total = 0;
  if (end && *end == '/') total = std::strtoull(end + 1, nullptr, 10);
}

}  // namespace

bool TableReader::looks_like_header(std::string_view line) {
  // The cheap tests first, without a copy (every step-cued line comes here): a header
  // names a loss and holds no "key=value", "key: value" or "a, b".
  if (line.find_first_of("=:,") != std::string_view::npos) return false;
  bool names_loss = false;
  for (std::size_t i = 0; i + 4 <= line.size() && !names_loss; ++i)
    names_loss = (line[i] | 0x20) == 'l' && (line[i + 1] | 0x20) == 'o' && (line[i + 2] | 0x20) == 's' &&
                 (line[i + 3] | 0x20) == 's';
  if (!names_loss) return false;
  const bool piped = line.find('|') != std::string_view::npos;
  const bool wide = !piped && has_wide_gap(line);
  if (!piped && !wide) return false;  // one space apart: a sentence ("the epoch loss is ..."), not columns
  const auto cs = cells(line, piped, wide);
  if (cs.size() < 2) return false;
  bool loss = false, count = false;
  for (auto c : cs) {
    if (c.empty() || c.size() > 40) return false;
    if (std::isdigit(static_cast<unsigned char>(c.front())) || numeric(c)) return false;
    for (char ch : c)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && std::string_view("_-() /.#").find(ch) == std::string_view::npos)
        return false;
    const std::string n = lower(c);
    loss = loss || is_training_loss_name(n);
    count = count || is_counter_name(n);
  }
  return loss && count;
}

bool TableReader::headerless_yolo_row(std::string_view line) {
  const std::string_view t = trim(line);
  // Cheap first (this runs on every line outside a table): digits, '/', digits, a blank.
  std::size_t at = 0;
  while (at < t.size() && std::isdigit(static_cast<unsigned char>(t[at]))) ++at;
  if (at == 0 || at >= t.size() || t[at] != '/') return false;
  const std::size_t after_slash = ++at;
  while (at < t.size() && std::isdigit(static_cast<unsigned char>(t[at]))) ++at;
  if (at == after_slash || at >= t.size() || (t[at] != ' ' && t[at] != '\t')) return false;
  // Then the cells: GPU memory ("12.8G") second, every other cell a number.
  const auto cs = cells(t, false, false);
  if (cs.size() < 10) return false;
  const std::string_view mem = cs[1];
  if (mem.size() < 2 || (mem.back() != 'G' && mem.back() != 'M') || !numeric(mem)) return false;
  for (std::size_t i = 2; i < cs.size(); ++i)
    if (cs[i].find('/') != std::string_view::npos || !numeric(cs[i])) return false;
  return true;
}

void TableReader::set_header(std::string_view line) {
  piped_ = line.find('|') != std::string_view::npos;
  const auto cs = cells(line, piped_, !piped_ && has_wide_gap(line));
  columns_.clear();
  loss_col_ = epoch_col_ = step_col_ = -1;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const std::string n = lower(cs[i]);
    const int at = static_cast<int>(i);
    // spaCy prints one "LOSS <component>" column per pipe, the shared embedding's
    // ("LOSS TOK2VEC", often 0 when it is frozen) first: the last one is the task's.
    if (is_training_loss_name(n) && (loss_col_ < 0 || (n.rfind("loss ", 0) == 0 && columns_[loss_col_].rfind("loss ", 0) == 0)))
      loss_col_ = at;
    if (epoch_col_ < 0 && is_epoch_name(n)) epoch_col_ = at;
    if (step_col_ < 0 && is_counter_name(n) && !is_epoch_name(n)) step_col_ = at;
    columns_.push_back(n);
  }
}

bool TableReader::maybe_row(std::string_view line) const {
  if (!active()) return false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '|' || c == '\r') continue;  // a progress bar's line starts with '\r'
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return false;
}

std::optional<TableReader::Row> TableReader::row(std::string_view line) const {
  if (!maybe_row(line)) return std::nullopt;
  const auto cs = cells(line, piped_, false);
  if (cs.size() < columns_.size()) return std::nullopt;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const bool must = !piped_ || static_cast<int>(i) == loss_col_ || static_cast<int>(i) == epoch_col_ ||
                      static_cast<int>(i) == step_col_;
    if (must ? !numeric(cs[i]) : cs[i].empty()) return std::nullopt;
  }
  Row r;
  r.loss_key = columns_[static_cast<std::size_t>(loss_col_)];
  std::string_view v = cs[static_cast<std::size_t>(loss_col_)];
  if (!v.empty() && v.back() == ':') v.remove_suffix(1);
  r.loss_value = std::string(v);
  if (epoch_col_ >= 0) {
    std::int64_t n = 0;
    counter(cs[static_cast<std::size_t>(epoch_col_)], n, r.epoch_total);
    r.epoch = n;
  }
  if (step_col_ >= 0) {
    std::int64_t n = 0;
    counter(cs[static_cast<std::size_t>(step_col_)], n, r.step_total);
    if (n >= 0) r.step = static_cast<std::uint64_t>(n);
  }
  return r;
}

}  // namespace gpualert::classify::detail
