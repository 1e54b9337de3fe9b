// Kernel / GPU-driver events: sd-journal reader, kernel-log text parser, Xid catalogue.
#include "gpualert/events/kernel_events.hpp"
#include "text_lines.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <unordered_map>

#ifdef GPUALERT_HAVE_SD_JOURNAL
#include <systemd/sd-journal.h>
#endif

namespace gpualert::events {
namespace {

constexpr std::streamoff kMaxFileBytes = 64LL << 20;  // the newest part of a kernel-log file that is read

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

bool icontains(std::string_view s, std::string_view p) {
  if (p.size() > s.size()) return false;
  for (std::size_t i = 0; i + p.size() <= s.size(); ++i) {
    std::size_t k = 0;
    while (k < p.size() && std::tolower(static_cast<unsigned char>(s[i + k])) == std::tolower(static_cast<unsigned char>(p[k]))) ++k;
    if (k == p.size()) return true;
  }
  return false;
}

std::optional<int> int_after(std::string_view s, std::size_t pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  std::size_t e = pos;
  while (e < s.size() && e - pos < 9 && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
  if (e == pos) return std::nullopt;
  return std::atoi(std::string(s.substr(pos, e - pos)).c_str());
}

// The catalogue, reduced. Sources: NVIDIA "Xid Errors" / "Xid Catalog"
// (docs.nvidia.com/deploy/xid-errors). Blame is the usual reading, not a certainty.
const XidInfo kXids[] = {
    {8, XidBlame::application, "GPU stopped processing (channel idle timeout): usually the application or driver"},
    {13, XidBlame::application, "Graphics Engine Exception: usually an application error (e.g. out-of-range access)"},
    {31, XidBlame::application, "GPU memory page fault (MMU fault): usually an application illegal memory access"},
    {32, XidBlame::hardware, "invalid or corrupted push buffer stream (PCIe / system memory corruption)"},
    {38, XidBlame::driver, "driver firmware error"},
    {43, XidBlame::application, "GPU stopped processing: the application's channel was reset (usually an app fault)"},
    {45, XidBlame::informational, "preemptive cleanup after earlier errors or a killed process"},
    {48, XidBlame::hardware, "double-bit (uncorrectable) ECC error"},
    {54, XidBlame::hardware, "auxiliary power is not connected to the GPU"},
    {56, XidBlame::driver, "display engine error"},
    {57, XidBlame::hardware, "error programming video memory interface"},
    {58, XidBlame::hardware, "unstable video memory interface detected"},
    {61, XidBlame::hardware, "internal micro-controller breakpoint / warning"},
    {62, XidBlame::hardware, "internal micro-controller halt"},
    {63, XidBlame::hardware, "ECC page retirement or row remapping recorded"},
    {64, XidBlame::hardware, "ECC page retirement or row remapping failure"},
    {68, XidBlame::hardware, "video processor (NVDEC) exception"},
    {69, XidBlame::hardware, "graphics engine class error"},
    {74, XidBlame::hardware, "NVLink error"},
    {79, XidBlame::hardware, "GPU has fallen off the bus"},
    {92, XidBlame::hardware, "high single-bit ECC error rate"},
    {94, XidBlame::hardware, "contained ECC error (the affected application must restart)"},
    {95, XidBlame::hardware, "uncontained ECC error (GPU reset required)"},
    {109, XidBlame::application, "context switch timeout (often an application stall)"},
    {119, XidBlame::driver, "GSP RPC timeout (firmware/driver)"},
    {120, XidBlame::driver, "GSP error (firmware/driver)"},
    {121, XidBlame::hardware, "C2C link error"},
    {122, XidBlame::hardware, "SPI PMU RPC read failure"},
    {123, XidBlame::hardware, "SPI PMU RPC write failure"},
    {140, XidBlame::hardware, "unrecovered ECC error"},
    {143, XidBlame::hardware, "GPU initialization failure"},
    {144, XidBlame::hardware, "NVLink / fabric error"},
    {145, XidBlame::hardware, "NVLink / fabric error"},
    {146, XidBlame::hardware, "NVLink / fabric error"},
    {147, XidBlame::hardware, "NVLink / fabric error"},
    {148, XidBlame::hardware, "NVLink / fabric error"},
    {149, XidBlame::hardware, "NVLink / fabric error"},
    {150, XidBlame::hardware, "NVLink / fabric error"},
    {151, XidBlame::hardware, "key rotation / fabric error"},
    {154, XidBlame::informational, "GPU recovery action changed (reset or drain required)"},
};

const XidInfo kUnknownXid{0, XidBlame::unknown, "an Xid not in gpualert's table"};

std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<Clock::time_point> boot_time() {
  std::ifstream in("/proc/stat");
  std::string k;
  long long v = 0;
  while (in >> k) {
    if (k == "btime" && in >> v) return Clock::time_point(std::chrono::seconds(v));
  }
  return std::nullopt;
}

bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}
int to_i(std::string_view s, std::size_t at, std::size_t n) { return std::atoi(std::string(s.substr(at, n)).c_str()); }

// "Nov" -> 10 (January is 0); -1 for anything else.
int month_index(std::string_view abbr) {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int m = 0; m < 12; ++m)
    if (abbr == kMonths[m]) return m;
  return -1;
}

// Strips a leading time stamp; returns the time (if any) and the rest of the line.
// BOOT caches the boot time across lines: it is read from /proc/stat once, on the first
// "[seconds since boot]" stamp.
std::pair<std::optional<Clock::time_point>, std::string_view> split_stamp(std::string_view line,
                                                                          std::optional<Clock::time_point>& boot) {
  std::optional<Clock::time_point> t;
  std::string_view rest = line;
  // ISO 8601: 2026-11-22T05:00:00[.ffffff][+00:00|Z]
  if (digits(line, 0, 4) && line.size() > 19 && line[4] == '-' && line[7] == '-' && (line[10] == 'T' || line[10] == ' ') &&
      digits(line, 11, 2) && line[13] == ':') {
    const auto days = days_from_civil(to_i(line, 0, 4), static_cast<unsigned>(to_i(line, 5, 2)), static_cast<unsigned>(to_i(line, 8, 2)));
    std::int64_t secs = days * 86400 + to_i(line, 11, 2) * 3600 + to_i(line, 14, 2) * 60 + to_i(line, 17, 2);
    std::size_t i = 19;
    std::int64_t us = 0;
    if (i < line.size() && (line[i] == '.' || line[i] == ',')) {
      ++i;
      std::int64_t scale = 100000;
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
        if (scale) us += (line[i] - '0') * scale;
        scale /= 10;
        ++i;
      }
    }
    if (i < line.size() && (line[i] == '+' || line[i] == '-') && digits(line, i + 1, 2)) {
      const int sign = line[i] == '+' ? 1 : -1;
      const int hh = to_i(line, i + 1, 2);
      std::size_t j = i + 3;
      if (j < line.size() && line[j] == ':') ++j;
      const int mm = digits(line, j, 2) ? to_i(line, j, 2) : 0;
      secs -= sign * (hh * 3600 + mm * 60);
      i = j + (digits(line, j, 2) ? 2 : 0);
    } else if (i < line.size() && line[i] == 'Z') {
      ++i;
    }
    // The clock's nanoseconds end in 2262: a stamp past that is left without a time.
    if (secs >= 0 && secs < 9'000'000'000LL) t = Clock::time_point(std::chrono::seconds(secs) + std::chrono::microseconds(us));
    rest = line.substr(i);
  } else if (line.size() > 16 && std::isupper(static_cast<unsigned char>(line[0])) && line[3] == ' ' && line[6] == ' ' &&
             line[9] == ':' && line[12] == ':') {
    // syslog "Nov 22 05:00:00 host ...": the year is not printed (assume this year, UTC).
    const int mon = month_index(line.substr(0, 3)) + 1;
    if (mon > 0) {
      const std::time_t now = std::time(nullptr);
      std::tm tmv{};
      gmtime_r(&now, &tmv);
      const int day = std::atoi(std::string(line.substr(4, 2)).c_str());
      const auto days = days_from_civil(tmv.tm_year + 1900, static_cast<unsigned>(mon), static_cast<unsigned>(day));
      t = Clock::time_point(std::chrono::seconds(days * 86400 + to_i(line, 7, 2) * 3600 + to_i(line, 10, 2) * 60 + to_i(line, 13, 2)));
      rest = line.substr(15);
    }
  }
  // "host kernel: " after a stamp.
  if (t) {
    const auto k = rest.find("kernel: ");
    if (k != std::string_view::npos && k < 80) rest = rest.substr(k + 8);
  }
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  // dmesg -T "[Sun Nov 29 04:53:03 2026] " (ctime's fixed width, the day space-padded):
  // the node's local time, as dmesg printed it.
  if (!t && rest.size() > 26 && rest[0] == '[' && rest[4] == ' ' && rest[8] == ' ' && rest[11] == ' ' &&
      digits(rest, 12, 2) && rest[14] == ':' && digits(rest, 15, 2) && rest[17] == ':' && digits(rest, 18, 2) &&
      rest[20] == ' ' && digits(rest, 21, 4) && rest[25] == ']' && (digits(rest, 9, 2) || (rest[9] == ' ' && digits(rest, 10, 1)))) {
    const int mon = month_index(rest.substr(5, 3));
    if (mon >= 0) {
      std::tm tmv{};
      tmv.tm_year = to_i(rest, 21, 4) - 1900;
      tmv.tm_mon = mon;
      tmv.tm_mday = rest[9] == ' ' ? to_i(rest, 10, 1) : to_i(rest, 9, 2);
      tmv.tm_hour = to_i(rest, 12, 2);
      tmv.tm_min = to_i(rest, 15, 2);
      tmv.tm_sec = to_i(rest, 18, 2);
      tmv.tm_isdst = -1;  // whatever the zone's rule was on that day
      const std::time_t when = std::mktime(&tmv);
      if (when != static_cast<std::time_t>(-1)) t = Clock::from_time_t(when);
      rest = rest.substr(26);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    }
  }
  // dmesg "[  269.516977] " (seconds since boot).
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close != std::string_view::npos && close < 20) {
      const std::string inner(rest.substr(1, close - 1));
      char* end = nullptr;
      const double sec = std::strtod(inner.c_str(), &end);
      if (end != inner.c_str()) {
        if (!t) {
          if (!boot) boot = boot_time();
          if (boot) t = *boot + std::chrono::microseconds(static_cast<std::int64_t>(sec * 1e6));
        }
        rest = rest.substr(close + 1);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      }
    }
  }
  return {t, rest};
}

}  // namespace

const XidInfo& xid_info(int xid) {
  for (const auto& x : kXids)
    if (x.xid == xid) return x;
  return kUnknownXid;
}

const char* to_string(XidBlame b) {
  switch (b) {
    case XidBlame::application: return "application";
    case XidBlame::hardware: return "hardware";
    case XidBlame::driver: return "driver";
    case XidBlame::informational: return "informational";
    default: return "unknown";
  }
}

namespace {
// A cheap, case-sensitive gate: nearly every kernel record names none of these, and the
// ring buffer or a journal can hold hundreds of thousands of records.
bool may_be_event(std::string_view m) {
  static constexpr std::string_view kTokens[] = {"NVRM", "Xid", "ECC", "ecc", "Ecc", "DBE", "emap", "EMAP", "allen off",
                                                 "ALLEN OFF", "illed process", "oom", "OOM", "of memory", "hrottl", "HROTTL",
                                                 "hermal", "HERMAL", "ower brake", "OWER BRAKE"};
  for (const auto t : kTokens)
    if (m.find(t) != std::string_view::npos) return true;
  return false;
}
}  // namespace

namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// DOMAIN:BB:DD[.F] at P, DOMAIN 4 to 8 hex digits; its length, or 0.
std::size_t bus_id_at(std::string_view s, std::size_t p, std::string& out) {
  std::size_t i = p;
  while (i < s.size() && hex(s[i]) && i - p < 9) ++i;
  const std::size_t dom = i - p;
  if (dom < 4 || dom > 8) return 0;
  if (i + 6 > s.size() || s[i] != ':' || !hex(s[i + 1]) || !hex(s[i + 2]) || s[i + 3] != ':' || !hex(s[i + 4]) ||
      !hex(s[i + 5]))
    return 0;
  const std::size_t end = i + 6;
  if (end < s.size() && (hex(s[end]) || s[end] == ':')) return 0;  // part of something longer
  std::string id(s.substr(i - 4, 4));
  id += s.substr(i, 6);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out = id;
  std::size_t n = end - p;
  if (end + 1 < s.size() && s[end] == '.' && std::isdigit(static_cast<unsigned char>(s[end + 1]))) n += 2;
  return n;
}

}  // namespace

std::optional<std::string> normalize_bus_id(std::string_view s, bool find) {
  std::string id;
  if (!find) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    if (s.size() > 4 && (s.substr(0, 4) == "PCI:" || s.substr(0, 4) == "pci:")) s.remove_prefix(4);
    if (const auto n = bus_id_at(s, 0, id); n > 0 && n == s.size()) return id;
    return std::nullopt;
  }
  for (std::size_t p = 0; p + 10 <= s.size(); ++p) {
    if (!hex(s[p]) || (p > 0 && hex(s[p - 1]))) continue;
    if (bus_id_at(s, p, id)) return id;
  }
  return std::nullopt;
}

std::optional<Event> parse_event_text(std::string_view m) {
  if (!may_be_event(m)) return std::nullopt;
  Event e;
  e.text = std::string(m.substr(0, 1000));
  if (const auto x = m.find("NVRM: Xid"); x != std::string_view::npos) {
    // "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, ..." (also "Xid (0000:01:00): 3, ...").
    const auto close = m.find("):", x);
    if (close == std::string_view::npos) return std::nullopt;
    e.kind = Kind::xid;
    e.xid = int_after(m, close + 2);
    e.bus_id = normalize_bus_id(m.substr(x, close - x), true).value_or("");
    if (const auto p = m.find("pid=", close); p != std::string_view::npos) e.pid = int_after(m, p + 4);
    return e;
  }
  if (icontains(m, "uncorrectable ECC") || icontains(m, "double bit ECC") || (icontains(m, "DBE") && has(m, "NVRM"))) {
    e.kind = Kind::ecc;
    e.bus_id = normalize_bus_id(m, true).value_or("");
    return e;
  }
  if (icontains(m, "row remap") && (icontains(m, "fail") || icontains(m, "pending"))) {
    e.kind = Kind::row_remap;
    e.bus_id = normalize_bus_id(m, true).value_or("");
    return e;
  }
  if (icontains(m, "fallen off the bus")) {
    e.kind = Kind::fallen_off_bus;
    e.bus_id = normalize_bus_id(m, true).value_or("");
    return e;
  }
  if (has(m, "Killed process") || has(m, "oom-kill:") || has(m, "invoked oom-killer") || has(m, "Out of memory")) {
    e.kind = Kind::oom_kill;
    if (const auto p = m.find("Killed process "); p != std::string_view::npos) e.pid = int_after(m, p + 15);
    else if (const auto q = m.find(",pid="); q != std::string_view::npos) e.pid = int_after(m, q + 5);
    // "UID:1000 pgtables:..." (Killed process) or ",uid=1000" (oom-kill: summary).
    if (const auto u = m.find("UID:"); u != std::string_view::npos) e.uid = int_after(m, u + 4);
    else if (const auto v = m.find(",uid="); v != std::string_view::npos) e.uid = int_after(m, v + 5);
    if (const auto c = m.find("task_memcg="); c != std::string_view::npos) {
      const auto from = c + 11;
      e.cgroup = std::string(m.substr(from, m.find(',', from) - from));
    }
    return e;
  }
  if ((icontains(m, "thermal") || icontains(m, "throttl") || icontains(m, "power brake")) &&
      (has(m, "NVRM") || icontains(m, "gpu") || icontains(m, "clock"))) {
    e.kind = Kind::throttle;
    e.bus_id = normalize_bus_id(m, true).value_or("");
    return e;
  }
  return std::nullopt;
}

std::vector<Event> parse_kernel_log(std::string_view text, std::string_view source, std::optional<Clock::time_point> boot) {
  std::vector<Event> out;
  detail::for_each_line(text, [&](std::string_view line) {
    if (line.empty()) return;
    auto [t, rest] = split_stamp(line, boot);
    if (auto e = parse_event_text(rest)) {
      if (t) e->time = *t;
      e->source = std::string(source);
      out.push_back(std::move(*e));
    }
  });
  return out;
}

bool journal_supported() {
#ifdef GPUALERT_HAVE_SD_JOURNAL
  return true;
#else
  return false;
#endif
}

namespace {

#ifdef GPUALERT_HAVE_SD_JOURNAL
std::string field(sd_journal* j, const char* name) {
  const void* d = nullptr;
  size_t n = 0;
  if (sd_journal_get_data(j, name, &d, &n) < 0) return {};
  std::string_view s(static_cast<const char*>(d), n);
  const auto eq = s.find('=');
  return eq == std::string_view::npos ? std::string() : std::string(s.substr(eq + 1));
}

void read_journal(Clock::time_point from, Clock::time_point to, const EventSources& src, ReadReport& rep) {
  sd_journal* j = nullptr;
  int r = src.journal_dir.empty() ? sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY)
                                  : sd_journal_open_directory(&j, src.journal_dir.c_str(), 0);
  if (r < 0) {
    rep.errors.push_back("journal: cannot open (" + std::string(std::strerror(-r)) + ")");
    return;
  }
  // Kernel records only. journald sets _TRANSPORT itself ("kernel": read from /dev/kmsg,
  // which only the kernel and root write); a user's logger, systemd-cat or raw /dev/log
  // datagram may claim SYSLOG_IDENTIFIER=kernel but arrives as syslog/journal/stdout.
  r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
  if (r < 0) {
    rep.errors.push_back("journal: cannot filter for kernel records (" + std::string(std::strerror(-r)) + ")");
    sd_journal_close(j);
    return;
  }
  const auto from_us = std::chrono::duration_cast<std::chrono::microseconds>(from.time_since_epoch()).count();
  const auto to_us = std::chrono::duration_cast<std::chrono::microseconds>(to.time_since_epoch()).count();
  const bool after_cursor = !src.journal_after_cursor.empty();
  r = after_cursor ? sd_journal_seek_cursor(j, src.journal_after_cursor.c_str())
                   : sd_journal_seek_realtime_usec(j, static_cast<uint64_t>(std::max<std::int64_t>(from_us, 0)));
  if (after_cursor && r >= 0 && sd_journal_next(j) > 0 && sd_journal_test_cursor(j, src.journal_after_cursor.c_str()) <= 0)
    sd_journal_previous(j);  // the cursor's own entry is gone (rotated): start at the next one
  if (r < 0) {
    rep.errors.push_back("journal: seek failed (" + std::string(std::strerror(-r)) + ")");
    sd_journal_close(j);
    return;
  }
  std::size_t scanned = 0;
  while (sd_journal_next(j) > 0) {
    uint64_t us = 0;
    if (sd_journal_get_realtime_usec(j, &us) < 0) continue;
    if (static_cast<std::int64_t>(us) > to_us) break;
    if (++scanned > 2'000'000) break;  // bound the work on a huge journal
    const std::string msg = field(j, "MESSAGE");
    if (msg.empty()) continue;
    auto e = parse_event_text(msg);
    if (!e) continue;
    e->time = Clock::time_point(std::chrono::microseconds(us));
    // journald stamps a record when it reads it; one that starts (or restarts) late
    // imports the whole ring buffer with fresh stamps. The kernel's own time, kept in
    // _SOURCE_MONOTONIC_TIMESTAMP, says when it really happened.
    const std::string mono = field(j, "_SOURCE_MONOTONIC_TIMESTAMP");
    if (!mono.empty() && mono.size() < 20 && mono.find_first_not_of("0123456789") == std::string::npos) {
      e->time = kmsg_zero() + std::chrono::microseconds(std::stoll(mono));
      if ((!after_cursor && e->time < from) || e->time > to) continue;
    }
    const std::string ident = field(j, "SYSLOG_IDENTIFIER");
    e->source = "journal" + (ident.empty() ? std::string() : ":" + ident);
    rep.events.push_back(std::move(*e));
    if (rep.events.size() >= src.max_events) break;
  }
  sd_journal_close(j);
  rep.read.push_back(src.journal_dir.empty() ? "journal" : "journal:" + src.journal_dir.string());
}
#endif

}  // namespace

std::optional<std::string> journal_tail_cursor(std::string& error) {
#ifdef GPUALERT_HAVE_SD_JOURNAL
  sd_journal* j = nullptr;
  int r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
  if (r < 0) {
    error = "journal: cannot open (" + std::string(std::strerror(-r)) + ")";
    return std::nullopt;
  }
  char* cursor = nullptr;
  r = sd_journal_seek_tail(j);
  if (r >= 0) r = sd_journal_previous(j);
  if (r > 0) r = sd_journal_get_cursor(j, &cursor);
  std::optional<std::string> out;
  if (r > 0 || (r == 0 && cursor)) out = std::string(cursor);
  else error = r == 0 ? "journal: no entries" : "journal: no cursor (" + std::string(std::strerror(-r)) + ")";
  std::free(cursor);
  sd_journal_close(j);
  return out;
#else
  error = "journal: this build has no libsystemd";
  return std::nullopt;
#endif
}

ReadReport read_kernel_events_report(Clock::time_point from, Clock::time_point to, const EventSources& src) {
  ReadReport rep;
  if (src.journal) {
#ifdef GPUALERT_HAVE_SD_JOURNAL
    read_journal(from, to, src, rep);
#else
    rep.errors.push_back("journal: this build has no libsystemd");
#endif
  }
  if (src.kmsg) {
    std::string err;
    if (const auto text = read_kmsg_text(src.kmsg_path, err)) {
      for (auto& e : parse_kmsg(*text, "kmsg", kmsg_zero())) {
        // After a recorded position: the sequence number decides, not the stamp.
        const bool in_window = src.kmsg_after_seq ? e.seq && *e.seq > *src.kmsg_after_seq : e.time >= from;
        if (in_window && e.time <= to) rep.events.push_back(std::move(e));
      }
      rep.read.push_back("kmsg");
    } else {
      rep.errors.push_back(src.kmsg_path.string() + ": cannot be read (" + err + ")");
    }
  }
  for (const auto& f : src.files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      rep.errors.push_back("file:" + f.string() + ": cannot be read");
      continue;
    }
    // A kern.log grows for months and is written in time order: the run's window is in
    // its newest part, so a huge file is read from its last kMaxFileBytes only.
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff skip = size > kMaxFileBytes ? size - kMaxFileBytes : 0;
    in.seekg(skip);
    std::string text(static_cast<std::size_t>(size - skip), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (skip > 0) text.erase(0, text.find('\n') == std::string::npos ? text.size() : text.find('\n') + 1);
    auto evs = parse_kernel_log(text, "file:" + f.string());
    for (auto& e : evs) {
      if (e.has_time() && (e.time < from || e.time > to)) continue;
      rep.events.push_back(std::move(e));
    }
    rep.read.push_back("file:" + f.string());
  }
  std::stable_sort(rep.events.begin(), rep.events.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  // The same record read from two sources (journal, ring buffer, kern.log) counts once:
  // same text, within two seconds (each source stamps it a little differently).
  std::vector<Event> uniq;
  std::unordered_map<std::string, std::vector<Clock::time_point>> seen;  // text -> times kept (epoch: no time)
  for (auto& e : rep.events) {
    auto& times = seen[e.text];
    const bool dup = std::any_of(times.begin(), times.end(), [&](Clock::time_point t) {
      return t == e.time || t.time_since_epoch().count() == 0 || !e.has_time() ||
             std::chrono::abs(t - e.time) < std::chrono::seconds(2);
    });
    if (dup) continue;
    times.push_back(e.time);
    uniq.push_back(std::move(e));
    if (uniq.size() >= src.max_events) break;
  }
  rep.events = std::move(uniq);
  return rep;
}

std::vector<Event> read_kernel_events(Clock::time_point from, Clock::time_point to, const EventSources& sources) {
  return read_kernel_events_report(from, to, sources).events;
}

}  // namespace gpualert::events
