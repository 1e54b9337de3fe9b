#include "gpualert/common/text.hpp"

#include <cstdio>
#include <ctime>

namespace gpualert {
namespace {

// Length of the valid UTF-8 sequence starting at S[I], or 0 if invalid.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  unsigned min = 0;
  unsigned cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1Fu; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0Fu; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07u; min = 0x10000; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

template <typename OnControl>
std::string clean(std::string_view in, std::size_t max_bytes, OnControl on_control) {
  std::string out;
  out.reserve(std::min(in.size(), max_bytes));
  for (std::size_t i = 0; i < in.size();) {
    const std::size_t n = utf8_len(in, i);
    std::string_view piece;
    char ctl = 0;
    if (n == 0) {
      piece = kReplacement;
      i += 1;
    } else if (n == 1 && (static_cast<unsigned char>(in[i]) < 0x20 || in[i] == 0x7F)) {
      ctl = on_control(in[i]);
      piece = std::string_view(&ctl, 1);
      i += 1;
    } else {
      piece = in.substr(i, n);
      i += n;
    }
    if (out.size() + piece.size() > max_bytes) break;
    out.append(piece);
  }
  return out;
}

}  // namespace

std::string one_line(std::string_view in, std::size_t max_bytes) {
  return clean(in, max_bytes, [](char) { return ' '; });
}

std::string printable_utf8(std::string_view in) {
  return clean(in, in.size() * 3 + 3, [](char c) { return (c == '\t' || c == '\n') ? c : '?'; });
}

std::string human_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) { v /= 1024.0; ++u; }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string human_duration(std::chrono::milliseconds d) {
  const long long ms = d.count() < 0 ? 0 : d.count();
  const long long s = ms / 1000;
  char buf[32];
  if (s < 1) std::snprintf(buf, sizeof buf, "%lldms", ms);
  else if (s < 60) std::snprintf(buf, sizeof buf, "%llds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else if (s < 86400) std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  else std::snprintf(buf, sizeof buf, "%lldd%02lldh", s / 86400, (s % 86400) / 3600);
  return buf;
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpualert
