// Quoted-printable for the text body (RFC 2045 section 6.7).
#include <cstddef>

#include "gpualert/notifier/encoding.hpp"

namespace gpualert::notify {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";
// 75 leaves room for the "=" of a soft line break within 76 columns.
constexpr std::size_t kMaxCol = 75;

std::string hex_escape(unsigned char c) {
  return std::string{'=', kHex[c >> 4], kHex[c & 15]};
}

void encode_line(std::string_view line, std::string& out) {
  std::size_t col = 0;
  for (std::size_t j = 0; j < line.size(); ++j) {
    const auto c = static_cast<unsigned char>(line[j]);
    const bool last = j + 1 == line.size();
    std::string token;
    if (c == ' ' || c == '\t') {
      // Trailing white space is stripped by some relays, so it is encoded.
      token = last ? hex_escape(c) : std::string(1, static_cast<char>(c));
    } else if (c >= 33 && c <= 126 && c != '=') {
      token = std::string(1, static_cast<char>(c));
    } else {
      token = hex_escape(c);
    }
    if (col + token.size() > kMaxCol) {
      out += "=\r\n";
      col = 0;
    }
    // A "." alone at the start of a line ends SMTP DATA and "From " gets
    // quoted as ">From " by mbox tools: encoding them keeps the text intact.
    if (col == 0 && token.size() == 1 && (c == '.' || (c == 'F' && line.substr(j).starts_with("From ")))) {
      token = hex_escape(c);
    }
    out += token;
    col += token.size();
  }
}

}  // namespace

std::string quoted_printable_encode(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string_view::npos) {
      encode_line(text.substr(start), out);
      break;
    }
    encode_line(text.substr(start, end - start), out);
    out += "\r\n";
    // CRLF, LF and a lone CR are each one line break.
    start = end + ((text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ? 2 : 1);
  }
  return out;
}

}  // namespace gpualert::notify
