#pragma once
// Text helpers shared by the report, the notifier and the CLI.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpualert {

// Makes untrusted text safe for one line: CR, LF and other control bytes become
// spaces, invalid UTF-8 becomes U+FFFD, and the result is cut to MAX_BYTES.
std::string one_line(std::string_view in, std::size_t max_bytes = 200);

// Replaces invalid UTF-8 sequences with U+FFFD and control bytes other than
// tab and newline with '?', so a log line can be shown in a mail or a terminal.
std::string printable_utf8(std::string_view in);

// "512 B", "3.4 KiB", "20.0 MiB", "1.2 GiB".
std::string human_size(std::uint64_t bytes);

// "850ms", "42s", "3m07s", "2h13m", "3d04h".
std::string human_duration(std::chrono::milliseconds d);

// ISO-8601 UTC, e.g. "2026-11-22T05:03:23Z".
std::string iso8601_utc(std::chrono::system_clock::time_point t);

}  // namespace gpualert
