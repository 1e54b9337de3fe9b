#pragma once
// The byte-level encodings a mail needs: base64, quoted-printable, RFC 2047
// header words, RFC 2231 parameters and the RFC 5322 date. Pure functions.
#include <chrono>
#include <string>
#include <string_view>

namespace gpualert::notify {

// Plain base64 (RFC 4648), no line breaks.
std::string base64_encode(std::string_view raw);

// Base64 for a MIME body: 76-column lines, each ending in CRLF (the last one
// too). Input that is a multiple of 57 bytes gives only full lines, so a file
// can be encoded chunk by chunk.
std::string base64_encode_lines(std::string_view raw);

// Same, appended to OUT (lets a streaming writer reuse one buffer).
void base64_append_lines(std::string_view raw, std::string& out);

// Quoted-printable (RFC 2045) of UTF-8 text: hard line breaks become CRLF (LF,
// CRLF and lone CR are accepted), lines are at most 76 characters, trailing
// white space and a leading "." or "From " are encoded so no relay mangles them.
std::string quoted_printable_encode(std::string_view text);

// A complete header line "Name: value\r\n": VALUE is made one line (CR, LF and
// controls removed, UTF-8 repaired), RFC 2047-encoded when not plain ASCII and
// folded so no line is longer than 78 characters. NAME is reduced to the
// characters RFC 5322 allows.
std::string header_line(std::string_view name, std::string_view value);

// RFC 2047 "B" encoded-words for VALUE, separated by CRLF SP; FIRST_LINE_USED
// is how many characters of the first line the header name already takes.
std::string encode_words(std::string_view value, std::size_t first_line_used);

// RFC 2231 extended value: "UTF-8''" followed by the percent-encoded bytes.
std::string rfc2231_value(std::string_view value);

// RFC 5322 date in UTC, e.g. "Sun, 22 Nov 2026 05:03:23 +0000".
std::string rfc5322_date(std::chrono::system_clock::time_point t);

}  // namespace gpualert::notify
