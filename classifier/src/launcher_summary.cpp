#include "launcher_summary.hpp"

#include "gpualert/common/text.hpp"

namespace gpualert::classify::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "  key      : value" -> value, when the key matches.
bool field(std::string_view line, std::string_view key, std::string& out) {
  const std::string_view t = trim(line);
  if (t.substr(0, key.size()) != key) return false;
  std::string_view rest = trim(t.substr(key.size()));
  if (rest.empty() || rest.front() != ':') return false;
  rest = trim(rest.substr(1));
  out = one_line(rest, 80);  // whole UTF-8 characters: the field is shown
  return true;
}

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

}  // namespace

void LauncherSummary::feed(std::string_view body, std::uint64_t lineno) {
  // Called for every line: a prefix test, not a search (torchrun prints the header
  // at the start of its line, after any rank prefix the caller already removed).
  if (trim(body).substr(0, 35) == "Root Cause (first observed failure)") {
    line_ = lineno;
    fields_left_ = 12;
    rank_.clear();
    host_.clear();
    exitcode_.clear();
    return;
  }
  if (fields_left_ <= 0) return;
  --fields_left_;
  std::string v;
  if (field(body, "rank", v)) rank_ = first_word(v);
  else if (field(body, "host", v)) host_ = first_word(v);
  else if (field(body, "exitcode", v)) exitcode_ = first_word(v);
  else if (trim(body).substr(0, 4) == "====") fields_left_ = 0;  // end of the block
}

}  // namespace gpualert::classify::detail
