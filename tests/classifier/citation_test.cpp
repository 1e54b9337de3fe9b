// Every citation must be true to the log: a number a verdict ties to a line
// ("2.219 (line 46)") is printed on that line, and every cited line is that line's
// text. Checked over every labelled log we have, with and without an exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "re2/re2.h"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// The numbers printed on a line, as doubles ("1.244238E+01", "0.0941", "7").
std::vector<double> numbers_on(const std::string& line) {
  static const RE2 num(R"(([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))");
  std::vector<double> out;
  re2::StringPiece in(line);
  std::string m;
  while (RE2::FindAndConsume(&in, num, &m)) out.push_back(std::strtod(m.c_str(), nullptr));
  return out;
}

// Printed with four significant digits ("%.4g"): equal within that rounding.
bool same_at_print_precision(double printed, double on_line) {
  if (printed == on_line) return true;
  return std::fabs(printed - on_line) <= 5.01e-4 * std::max(std::fabs(printed), std::fabs(on_line));
}

// "<number> (line N)" in a shows line: the number must be on line N.
std::vector<std::string> number_claims_off_their_line(const std::string& shows, const std::vector<std::string>& log) {
  static const RE2 claim(R"(([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?) \(line (\d+)\))");
  std::vector<std::string> bad;
  re2::StringPiece in(shows);
  std::string value, line;
  while (RE2::FindAndConsume(&in, claim, &value, &line)) {
    const auto n = std::stoull(line);
    const double v = std::strtod(value.c_str(), nullptr);
    bool found = false;
    if (n >= 1 && n <= log.size())
      for (double x : numbers_on(log[n - 1])) found = found || same_at_print_precision(v, x);
    if (!found) bad.push_back(value + " is not on line " + line);
  }
  return bad;
}

// A citation's text is its line made printable and cut: compare a printable prefix.
bool cites_its_line(const Citation& c, const std::vector<std::string>& log) {
  if (c.line < 1 || c.line > log.size()) return false;
  const auto printable = [](std::string s) {
    // Citations print typographic quotes as ASCII ones.
    for (const char* q : {"\xe2\x80\x98", "\xe2\x80\x99"})
      for (auto at = s.find(q); at != std::string::npos; at = s.find(q)) s.replace(at, 3, "'");
    for (const char* q : {"\xe2\x80\x9c", "\xe2\x80\x9d"})
      for (auto at = s.find(q); at != std::string::npos; at = s.find(q)) s.replace(at, 3, "\"");
    std::string out;
    for (char ch : s)
      if (static_cast<unsigned char>(ch) >= 0x21 && ch != 0x7f) out.push_back(ch);  // spaces and controls vary
    return out;
  };
  const std::string cited = printable(c.text).substr(0, 48);
  return printable(log[c.line - 1]).find(cited) != std::string::npos;
}

TEST(Citations, EveryNumberTiedToALineIsOnThatLineAndEveryCitedLineIsThatLine) {
  std::vector<fs::path> logs = logs_under(GPUALERT_CORPUS_DIR);
  for (const auto& p : logs_under(GPUALERT_REAL_LOGS_DIR)) logs.push_back(p);
  for (const auto& p : logs_under(GPUALERT_ANCHOR_DIR)) logs.push_back(p);
  ASSERT_GT(logs.size(), 500u);
  std::size_t claims = 0, cites = 0, bad = 0;
  for (const auto& p : logs) {
    const auto log = lines_of(p);
    for (std::optional<int> code : {std::optional<int>(), std::optional<int>(0), std::optional<int>(1)}) {
      const Verdict v = builtin().classify_file(p, exit_status(code));
      for (const auto& s : v.shows) {
        ++claims;
        for (const auto& b : number_claims_off_their_line(s, log))
          if (++bad <= 5) ADD_FAILURE() << p << ": \"" << s << "\": " << b;
      }
      for (const auto& c : v.evidence) {
        ++cites;
        if (!cites_its_line(c, log) && ++bad <= 5)
          ADD_FAILURE() << p << ": evidence line " << c.line << " \"" << c.text << "\" is not that line of the log";
      }
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << claims << " shows lines and " << cites << " citations";
}

// The checker itself: a number moved to another line is caught.
TEST(Citations, TheCheckerCatchesANumberOnTheWrongLine) {
  const std::vector<std::string> log = {"step 1 loss 1.55057e+07", "step 2 loss 7.84346e+302"};
  EXPECT_TRUE(number_claims_off_their_line("the loss went from 1.551e+07 (line 1) to 7.843e+302 (line 2)", log).empty());
  EXPECT_EQ(number_claims_off_their_line("the loss went from about 6.311e+44 (line 1)", log).size(), 1u);
  EXPECT_FALSE(cites_its_line(Citation{2, "step 1 loss 1.55057e+07", "x"}, log));
  EXPECT_TRUE(cites_its_line(Citation{1, "step 1 loss 1.55057e+07", "x"}, log));
}

}  // namespace
}  // namespace gpualert::classify::test
