// Base64 (RFC 4648 alphabet), plain and as MIME body lines (RFC 2045).
#include <cstdint>

#include "gpualert/notifier/encoding.hpp"

namespace gpualert::notify {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// 57 raw bytes are exactly one 76-character line.
constexpr std::size_t kRawPerLine = 57;

void encode_into(std::string_view raw, std::string& out) {
  std::size_t i = 0;
  for (; i + 3 <= raw.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{static_cast<unsigned char>(raw[i])} << 16) |
                            (std::uint32_t{static_cast<unsigned char>(raw[i + 1])} << 8) |
                            std::uint32_t{static_cast<unsigned char>(raw[i + 2])};
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const std::size_t rest = raw.size() - i;
  if (rest == 0) return;
  std::uint32_t v = std::uint32_t{static_cast<unsigned char>(raw[i])} << 16;
  if (rest == 2) v |= std::uint32_t{static_cast<unsigned char>(raw[i + 1])} << 8;
  out += kAlphabet[(v >> 18) & 63];
  out += kAlphabet[(v >> 12) & 63];
  out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  out += '=';
}

}  // namespace

std::string base64_encode(std::string_view raw) {
  std::string out;
  out.reserve((raw.size() + 2) / 3 * 4);
  encode_into(raw, out);
  return out;
}

void base64_append_lines(std::string_view raw, std::string& out) {
  out.reserve(out.size() + (raw.size() + 2) / 3 * 4 + (raw.size() / kRawPerLine + 1) * 2);
  for (std::size_t i = 0; i < raw.size(); i += kRawPerLine) {
    encode_into(raw.substr(i, kRawPerLine), out);
    out += "\r\n";
  }
}

std::string base64_encode_lines(std::string_view raw) {
  std::string out;
  base64_append_lines(raw, out);
  return out;
}

}  // namespace gpualert::notify
