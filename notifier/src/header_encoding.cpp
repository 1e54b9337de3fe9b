// Header values: one line, RFC 2047 when not ASCII, folded (RFC 5322 2.2.3).
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "gpualert/common/text.hpp"
#include "gpualert/notifier/encoding.hpp"

namespace gpualert::notify {
namespace {

constexpr std::size_t kFoldAt = 78;       // RFC 5322 recommended line length
constexpr std::size_t kMaxValue = 900;    // keeps every line under the hard 998 limit
constexpr std::size_t kMaxWord = 75;      // RFC 2047 encoded-word limit
constexpr std::string_view kWordPrefix = "=?UTF-8?B?";
constexpr std::string_view kWordSuffix = "?=";

std::string clean_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c > 32 && c < 127 && c != ':') out += c;
  }
  return out.empty() ? std::string("X-Invalid-Header") : out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool needs_encoding(std::string_view v) {
  for (char c : v) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  // Plain text that looks like an encoded-word would be decoded by readers.
  return v.find("=?") != std::string_view::npos;
}

// Folds plain ASCII before a space so that unfolding gives back VALUE exactly.
std::string fold_ascii(std::string_view value, std::size_t used) {
  std::string out;
  std::size_t col = used;
  std::size_t i = 0;
  while (i < value.size()) {
    std::size_t next = value.find(' ', i + 1);
    if (next == std::string_view::npos) next = value.size();
    const std::string_view seg = value.substr(i, next - i);
    // Fold only before " word": a continuation line must not be blank.
    if (i > 0 && col + seg.size() > kFoldAt && seg.size() > 1) {
      out += "\r\n";
      col = 0;
    }
    out += seg;
    col += seg.size();
    i = next;
  }
  return out;
}

std::size_t raw_bytes_for(std::size_t word_len) {
  const std::size_t b64 = word_len > kWordPrefix.size() + kWordSuffix.size()
                              ? word_len - kWordPrefix.size() - kWordSuffix.size()
                              : 0;
  return std::max<std::size_t>(b64 / 4 * 3, 6);  // at least one whole UTF-8 character
}

}  // namespace

std::string encode_words(std::string_view value, std::size_t first_line_used) {
  std::string out;
  std::size_t max_raw = raw_bytes_for(std::min(kMaxWord, first_line_used < 76 ? 76 - first_line_used : 0));
  std::size_t i = 0;
  while (i < value.size()) {
    std::size_t n = std::min(max_raw, value.size() - i);
    // Never split a UTF-8 sequence between two words (RFC 2047 section 5).
    while (n > 0 && i + n < value.size() && (static_cast<unsigned char>(value[i + n]) & 0xC0) == 0x80) --n;
    if (n == 0) n = std::min(max_raw, value.size() - i);
    if (!out.empty()) out += "\r\n ";
    out += kWordPrefix;
    out += base64_encode(value.substr(i, n));
    out += kWordSuffix;
    i += n;
    max_raw = raw_bytes_for(kMaxWord);
  }
  return out;
}

std::string header_line(std::string_view name, std::string_view value) {
  const std::string n = clean_name(name);
  const std::string clean = one_line(value, kMaxValue);
  const std::string_view v = trim(clean);
  std::string out = n + ": ";
  out += needs_encoding(v) ? encode_words(v, out.size()) : fold_ascii(v, out.size());
  out += "\r\n";
  return out;
}

std::string rfc2231_value(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  static constexpr std::string_view kAttrChars = "!#$&+-.^_`|~";
  std::string out = "UTF-8''";
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (alnum || (c < 128 && kAttrChars.find(ch) != std::string_view::npos)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string rfc5322_date(std::chrono::system_clock::time_point t) {
  // Fixed English names: the C locale of the host must not leak into headers.
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace gpualert::notify
