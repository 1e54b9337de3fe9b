// Known vectors and structural rules for base64, QP, RFC 2047/2231 and dates.
#include <gtest/gtest.h>

#include <random>

#include "decode_helpers.hpp"
#include "gpualert/notifier/address.hpp"
#include "gpualert/notifier/attachment_budget.hpp"
#include "gpualert/notifier/encoding.hpp"

namespace gpualert::notify {
namespace {

using testing::base64_decode;
using testing::decode_words;
using testing::qp_decode;

std::vector<std::string> split_crlf(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t p; (p = s.find("\r\n", start)) != std::string::npos; start = p + 2) lines.push_back(s.substr(start, p - start));
  lines.push_back(s.substr(start));
  return lines;
}

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(Base64, LinesAre76ColumnsWithCrlfAndSizeIsPredicted) {
  for (std::size_t n : {0u, 1u, 56u, 57u, 58u, 114u, 115u, 1000u, 4096u}) {
    const std::string raw = std::string(n, 'x') + "";
    const std::string enc = base64_encode_lines(raw);
    EXPECT_EQ(enc.size(), base64_encoded_size(n)) << n;
    EXPECT_EQ(base64_decode(enc), raw);
    if (n == 0) continue;
    ASSERT_TRUE(enc.ends_with("\r\n"));
    auto lines = split_crlf(enc);
    lines.pop_back();  // empty piece after the final CRLF
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i + 1 < lines.size()) EXPECT_EQ(lines[i].size(), 76u);
      else EXPECT_LE(lines[i].size(), 76u);
    }
  }
}

TEST(Base64, EncodedSizeFormula) {
  EXPECT_EQ(base64_encoded_size(0), 0u);
  EXPECT_EQ(base64_encoded_size(1), 6u);    // "xx==" CRLF
  EXPECT_EQ(base64_encoded_size(57), 78u);
  EXPECT_EQ(base64_encoded_size(58), 84u);
  for (std::uint64_t n = 0; n < 500; ++n) EXPECT_EQ(base64_encoded_size(n), base64_encode_lines(std::string(n, 'a')).size());
}

TEST(Base64, ChunkedEncodingEqualsWholeEncoding) {
  const std::string raw = std::string(57 * 3 + 10, '\x9c');
  EXPECT_EQ(base64_encode_lines(raw.substr(0, 57 * 2)) + base64_encode_lines(raw.substr(57 * 2)), base64_encode_lines(raw));
}

TEST(QuotedPrintable, Vectors) {
  EXPECT_EQ(quoted_printable_encode("Hello, world"), "Hello, world");
  EXPECT_EQ(quoted_printable_encode("Gr\xC3\xBC\xC3\x9F" "e"), "Gr=C3=BC=C3=9Fe");
  EXPECT_EQ(quoted_printable_encode("a=b"), "a=3Db");
  EXPECT_EQ(quoted_printable_encode("trailing \nx\t"), "trailing=20\r\nx=09");
  EXPECT_EQ(quoted_printable_encode("a\r\nb\rc\nd"), "a\r\nb\r\nc\r\nd");
  EXPECT_EQ(quoted_printable_encode("x\n"), "x\r\n");
  EXPECT_EQ(quoted_printable_encode(".\n.dot"), "=2E\r\n=2Edot");
  EXPECT_EQ(quoted_printable_encode("From me\nFromage"), "=46rom me\r\nFromage");
  EXPECT_EQ(quoted_printable_encode("tab\tin"), "tab\tin");
}

TEST(QuotedPrintable, LongLinesAreSoftBrokenWithin76AndRoundTrip) {
  std::mt19937 gen(7);
  std::string text;
  const char* pieces[] = {"word ", "=", "\xC3\xA9", "\t", "..", "x", "  ", "\n", "\xE2\x82\xAC", "loss=0.25 "};
  for (int i = 0; i < 3000; ++i) text += pieces[gen() % 10];
  text += std::string(300, 'y') + " \n" + std::string(300, '\xC3') + "\n";
  const std::string enc = quoted_printable_encode(text);
  for (const std::string& line : split_crlf(enc)) {
    EXPECT_LE(line.size(), 76u) << line;
    EXPECT_FALSE(!line.empty() && (line.back() == ' ' || line.back() == '\t')) << line;
    EXPECT_FALSE(line.starts_with(".")) << line;
    for (char c : line) EXPECT_TRUE(c == '\t' || (c >= 32 && c < 127)) << static_cast<int>(c);
  }
  EXPECT_EQ(qp_decode(enc), text);
}

TEST(HeaderLine, AsciiIsPlain) {
  EXPECT_EQ(header_line("Subject", "hello world"), "Subject: hello world\r\n");
  EXPECT_EQ(header_line("Subject", "  padded  "), "Subject: padded\r\n");
  EXPECT_EQ(header_line("X-Gpualert-Class", "cuda_oom"), "X-Gpualert-Class: cuda_oom\r\n");
}

TEST(HeaderLine, NonAsciiIsRfc2047) {
  EXPECT_EQ(header_line("Subject", "Gr\xC3\xBC\xC3\x9F" "e"), "Subject: =?UTF-8?B?R3LDvMOfZQ==?=\r\n");
}

TEST(HeaderLine, LookalikeEncodedWordIsEncoded) {
  const std::string h = header_line("Subject", "=?UTF-8?B?ZXZpbA==?=");
  EXPECT_EQ(decode_words(h), "=?UTF-8?B?ZXZpbA==?=");
}

TEST(HeaderLine, CrLfAndControlsCannotInjectAHeader) {
  for (const char* evil : {"job\r\nBcc: evil@x", "job\nBcc: evil@x", "job\rBcc: evil@x", "job\r\n\r\nbody",
                           "j\xC3\xB6" "b\r\nBcc: evil@x", "job\x01\x0b\x1b[31m"}) {
    const std::string h = header_line("Subject", evil);
    ASSERT_TRUE(h.ends_with("\r\n"));
    // The only line breaks are folds (CRLF followed by a space).
    for (std::size_t p = h.find('\n'); p != std::string::npos; p = h.find('\n', p + 1)) {
      ASSERT_GT(p, 0u);
      EXPECT_EQ(h[p - 1], '\r');
      EXPECT_TRUE(p + 1 == h.size() || h[p + 1] == ' ') << h;
    }
    for (std::size_t i = 0; i < h.size(); ++i) {
      const auto c = static_cast<unsigned char>(h[i]);
      EXPECT_TRUE(c >= 32 || h[i] == '\r' || h[i] == '\n') << i;
    }
    EXPECT_EQ(h.find("\r\nBcc"), std::string::npos) << h;
  }
  EXPECT_EQ(header_line("Subject", "job\r\nBcc: evil@x"), "Subject: job  Bcc: evil@x\r\n");
}

TEST(HeaderLine, HeaderNameIsCleaned) {
  EXPECT_EQ(header_line("X-Bad Name:\r\n", "v"), "X-BadName: v\r\n");
  EXPECT_EQ(header_line("", "v"), "X-Invalid-Header: v\r\n");
}

TEST(HeaderLine, LongAsciiFoldsAt78AndUnfoldsBack) {
  std::string v;
  for (int i = 0; i < 40; ++i) v += "word" + std::to_string(i) + " ";
  v += "end";
  const std::string h = header_line("Subject", v);
  auto lines = split_crlf(h);
  lines.pop_back();
  EXPECT_GT(lines.size(), 1u);
  std::string unfolded;
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 78u) << l;
    unfolded += l;
  }
  EXPECT_EQ(unfolded, "Subject: " + v);
}

TEST(HeaderLine, LongUtf8FoldsIntoWholeCharacterWords) {
  std::string v;
  for (int i = 0; i < 60; ++i) v += "\xE2\x82\xAC\xC3\xA9x\xF0\x9F\x94\xA5 ";  // euro, e-acute, x, fire
  v += "done";
  const std::string h = header_line("Subject", v);
  auto lines = split_crlf(h);
  lines.pop_back();
  EXPECT_GT(lines.size(), 3u);
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 76u) << l;
    // Every word decodes on its own to valid UTF-8 (no sequence split).
    const std::string w = decode_words(l);
    ASSERT_FALSE(w.empty());
    EXPECT_NE((static_cast<unsigned char>(w[0]) & 0xC0), 0x80u) << l;
  }
  EXPECT_EQ(decode_words(h), v);
}

TEST(Rfc2231, PercentEncodesNonAttrChars) {
  EXPECT_EQ(rfc2231_value("r\xC3\xA9sum\xC3\xA9 1.log"), "UTF-8''r%C3%A9sum%C3%A9%201.log");
  EXPECT_EQ(rfc2231_value("a'b*c%d"), "UTF-8''a%27b%2Ac%25d");
}

TEST(Rfc5322Date, FixedFormatUtc) {
  EXPECT_EQ(rfc5322_date(std::chrono::system_clock::from_time_t(0)), "Thu, 01 Jan 1970 00:00:00 +0000");
  EXPECT_EQ(rfc5322_date(std::chrono::system_clock::from_time_t(1795410203)), "Mon, 23 Nov 2026 05:03:23 +0000");
}

TEST(Address, AcceptsBareAddressesRejectsInjection) {
  EXPECT_TRUE(is_valid_address("alice@gpu041"));
  EXPECT_TRUE(is_valid_address("alice"));
  EXPECT_TRUE(is_valid_address("a.b+tag@example.org"));
  EXPECT_FALSE(is_valid_address(""));
  EXPECT_FALSE(is_valid_address("a@b\r\nRCPT TO:<x@y>"));
  EXPECT_FALSE(is_valid_address("a@b>"));
  EXPECT_FALSE(is_valid_address("<a@b>"));
  EXPECT_FALSE(is_valid_address("a b@c"));
  EXPECT_FALSE(is_valid_address("@c"));
  EXPECT_FALSE(is_valid_address("a@"));
  EXPECT_FALSE(is_valid_address("a@b@c"));
  EXPECT_FALSE(is_valid_address("\xC3\xA9@x"));
}

}  // namespace
}  // namespace gpualert::notify
