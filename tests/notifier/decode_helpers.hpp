#pragma once
// Minimal decoders used only to check the encoders' output in tests.
#include <string>
#include <string_view>

namespace gpualert::notify::testing {

inline std::string base64_decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = val(c);
    if (v < 0) continue;  // CRLF and padding
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// Decodes quoted-printable with CRLF hard breaks into text with LF breaks.
inline std::string qp_decode(std::string_view in) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '=' && i + 2 < in.size() + 0 && in.substr(i + 1, 2) == "\r\n") {
      i += 2;  // soft line break
    } else if (in[i] == '=' && i + 2 < in.size()) {
      out += static_cast<char>(std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else if (in[i] == '\r' && i + 1 < in.size() && in[i + 1] == '\n') {
      out += '\n';
      ++i;
    } else {
      out += in[i];
    }
  }
  return out;
}

// Decodes a header value made of "=?UTF-8?B?...?=" words separated by folding.
inline std::string decode_words(std::string_view v) {
  std::string out;
  std::size_t pos = 0;
  while ((pos = v.find("=?UTF-8?B?", pos)) != std::string_view::npos) {
    const std::size_t end = v.find("?=", pos + 10);
    out += base64_decode(v.substr(pos + 10, end - pos - 10));
    pos = end + 2;
  }
  return out;
}

}  // namespace gpualert::notify::testing
