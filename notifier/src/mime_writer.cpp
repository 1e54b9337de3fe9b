// Renders a Message as RFC 5322 + MIME multipart/mixed, always with CRLF.
// Attachments are streamed from disk chunk by chunk, never loaded whole.
#include "gpualert/notifier/mime_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "gpualert/common/text.hpp"
#include "gpualert/notifier/address.hpp"
#include "gpualert/notifier/encoding.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

// A multiple of 57 raw bytes, so every chunk but the last gives whole lines.
constexpr std::size_t kChunk = 57 * 1024;

std::string random_hex(std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += kHex[rd() & 15];
  return s;
}

// "=_" never occurs in base64 or quoted-printable output ("=" is always
// escaped as "=3D"), so this boundary cannot collide with any part's content.
std::string make_boundary() { return "=_gpualert_" + random_hex(24); }

std::string lower(std::string_view s) {
  std::string o(s);
  std::transform(o.begin(), o.end(), o.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return o;
}

// Headers this writer owns; an extra header must not duplicate or override them.
bool reserved_header(std::string_view name) {
  static const char* kReserved[] = {"from", "to", "cc", "bcc", "subject", "date", "message-id", "mime-version"};
  const std::string n = lower(name);
  if (n.starts_with("content-")) return true;
  return std::any_of(std::begin(kReserved), std::end(kReserved), [&](const char* r) { return n == r; });
}

std::string message_id(const Message& msg) {
  static std::atomic<unsigned> counter{0};
  std::string domain;
  const std::string& from = msg.envelope.from;
  if (is_valid_address(from) && from.find('@') != std::string::npos) domain = from.substr(from.find('@') + 1);
  if (domain.empty()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0 && is_valid_address(host)) domain = host;
  }
  if (domain.empty()) domain = "localhost.localdomain";
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return "<" + std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) + "." +
         std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + random_hex(8) + "@" + domain + ">";
}

// Line breaks become LF, then anything that is not printable UTF-8 is
// replaced: the part says charset=utf-8, so it must be true.
std::string clean_body(std::string_view text) {
  std::string lf;
  lf.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      lf += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      lf += text[i];
    }
  }
  return printable_utf8(lf);
}

bool plain_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 32 && c < 127; });
}

// File name as shown to the reader: one line, no path separators, no quotes.
std::string clean_filename(std::string_view name) {
  std::string n = one_line(name, 200);
  for (char& c : n) {
    if (c == '/' || c == '\\' || c == '"') c = '_';
  }
  return n.empty() ? std::string("attachment") : n;
}

bool ascii_name(std::string_view name) { return plain_ascii(clean_filename(name)); }

std::string clean_content_type(std::string_view t) {
  const std::string s = one_line(t, 200);
  const bool ok = s.find('/') != std::string::npos &&
                  std::all_of(s.begin(), s.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$&^_.+-/;= ", c) != nullptr;
                  });
  return ok ? s : std::string("application/octet-stream");
}

void write_text_part(std::ostream& out, const std::string& boundary, std::string_view text,
                     std::string_view subtype = "plain") {
  out << "--" << boundary << "\r\n"
      << "Content-Type: text/" << subtype << "; charset=utf-8\r\n"
      << "Content-Transfer-Encoding: quoted-printable\r\n"
      << "\r\n"
      << quoted_printable_encode(clean_body(text)) << "\r\n";
}

bool clean_cid(std::string_view cid) {
  return !cid.empty() && cid.size() <= 200 && std::all_of(cid.begin(), cid.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(".@_-", c) != nullptr;
  });
}

void write_inline_part(std::ostream& out, const std::string& boundary, const InlinePart& p) {
  const std::string name = clean_filename(p.name);
  out << "--" << boundary << "\r\n"
      << "Content-Type: " << clean_content_type(p.content_type) << "; name=\"" << name << "\"\r\n"
      << "Content-Transfer-Encoding: base64\r\n"
      << "Content-ID: <" << p.cid << ">\r\n"
      << "Content-Disposition: inline; filename=\"" << name << "\"\r\n"
      << "\r\n";
  std::string encoded;
  base64_append_lines(p.data, encoded);
  out << encoded;
}

// The text and its HTML rendering as alternatives; the HTML's pictures beside it.
void write_alternative(std::ostream& out, const std::string& outer, const Message& msg) {
  const std::string alt = make_boundary(), rel = make_boundary();
  out << "--" << outer << "\r\n"
      << "Content-Type: multipart/alternative; boundary=\"" << alt << "\"\r\n\r\n";
  write_text_part(out, alt, msg.body_text);
  std::vector<const InlinePart*> parts;
  for (const InlinePart& p : msg.inline_parts)
    if (clean_cid(p.cid) && ascii_name(p.name)) parts.push_back(&p);
  if (parts.empty()) {
    write_text_part(out, alt, msg.body_html, "html");
  } else {
    out << "--" << alt << "\r\n"
        << "Content-Type: multipart/related; type=\"text/html\"; boundary=\"" << rel << "\"\r\n\r\n";
    write_text_part(out, rel, msg.body_html, "html");
    for (const InlinePart* p : parts) write_inline_part(out, rel, *p);
    out << "--" << rel << "--\r\n";
  }
  out << "--" << alt << "--\r\n";
}

// Writes one attachment part; returns a note for the reader when the file
// could not be read completely (the message stays well-formed either way).
std::string write_attachment(std::ostream& out, const std::string& boundary, const PlannedFile& f) {
  const std::string name = clean_filename(f.shown_name());
  const std::string type = f.compressed ? "application/gzip" : clean_content_type(f.file.content_type);
  // A compressed copy is our own staged file, often unnamed and reached through the
  // /proc/self/fd link; anything else is the user's file and no link is followed.
  const int nofollow = f.compressed ? 0 : O_NOFOLLOW;
  UniqueFd fd(::open(f.source.c_str(), O_RDONLY | nofollow | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = fd.valid() ? "not a regular file any more" : std::strerror(errno);
    return "The attachment " + name + " could not be read when this message was written (" + why +
           "), so it is not included.";
  }
  out << "--" << boundary << "\r\n";
  if (plain_ascii(name)) {
    out << "Content-Type: " << type << "; name=\"" << name << "\"\r\n"
        << "Content-Transfer-Encoding: base64\r\n"
        << "Content-Disposition: attachment; filename=\"" << name << "\"\r\n";
  } else {
    // RFC 2231 for the disposition; the RFC 2047 "name" is for older readers.
    out << "Content-Type: " << type << ";\r\n name=\""
        << encode_words(name, 6) << "\"\r\n"
        << "Content-Transfer-Encoding: base64\r\n"
        << "Content-Disposition: attachment;\r\n filename*=" << rfc2231_value(name) << "\r\n";
  }
  out << "\r\n";
  std::vector<char> buf(kChunk);
  std::string encoded;  // reused: one buffer for the whole file
  std::uint64_t left = f.raw_size;
  std::string problem;
  while (left > 0 && out) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, kChunk));
    const long n = read_full(fd.get(), buf.data(), want);
    if (n < 0) {
      problem = std::strerror(errno);
      break;
    }
    encoded.clear();
    base64_append_lines(std::string_view(buf.data(), static_cast<std::size_t>(n)), encoded);
    out.write(encoded.data(), static_cast<std::streamsize>(encoded.size()));
    left -= static_cast<std::uint64_t>(n);
    if (static_cast<std::size_t>(n) < want) {
      problem = "the file became shorter";
      break;
    }
  }
  if (problem.empty()) return {};
  return "The attachment " + name + " is incomplete: only " + human_size(f.raw_size - left) + " of " +
         human_size(f.raw_size) + " could be read (" + problem + ").";
}

}  // namespace

void write_mime(const Message& msg, std::ostream& out) {
  const std::string boundary = make_boundary();
  std::string to;
  for (const std::string& r : msg.envelope.to) {
    if (!to.empty()) to += ", ";
    to += r;
  }
  if (to.empty()) to = "undisclosed-recipients:;";  // RFC 5322 group syntax: no header is left empty
  out << header_line("From", msg.envelope.from) << header_line("To", to) << header_line("Subject", msg.subject)
      << header_line("Date", rfc5322_date(std::chrono::system_clock::now()))
      << header_line("Message-ID", message_id(msg)) << "MIME-Version: 1.0\r\n";
  for (const auto& [name, value] : msg.extra_headers) {
    if (!reserved_header(name)) out << header_line(name, value);
  }
  out << "Content-Type: multipart/mixed; boundary=\"" << boundary << "\"\r\n"
      << "\r\n"
      << "This is a multi-part message in MIME format.\r\n";
  if (msg.body_html.empty()) write_text_part(out, boundary, msg.body_text);
  else write_alternative(out, boundary, msg);
  for (const PlannedFile& f : msg.attachments.attached) {
    if (!out) break;
    const std::string note = write_attachment(out, boundary, f);
    if (!note.empty()) write_text_part(out, boundary, note);
  }
  out << "--" << boundary << "--\r\n";
}

}  // namespace gpualert::notify
