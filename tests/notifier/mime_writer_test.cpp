// The written message is checked twice: structurally here, and by an
// independent parser (Python's email package via parse_mime.py).
#include "gpualert/notifier/mime_writer.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <sstream>

#include "decode_helpers.hpp"
#include "gpualert/notifier/attachment_budget.hpp"
#include "test_support.hpp"

namespace gpualert::notify {
namespace {

using testing::TempDir;
using testing::read_bytes;
using testing::write_bytes;
using nlohmann::json;

const std::string kSubject = "[gpualert] job r\xC3\xA9sum\xC3\xA9-\xE8\xAE\xAD\xE7\xBB\x83 failed: CUDA OOM \xF0\x9F\x94\xA5";

// Every line ends in CRLF, none is longer than RFC 5322's 998 characters.
void expect_crlf_only(const std::string& s) {
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    ASSERT_NE(nl, std::string::npos) << "message does not end with CRLF";
    ASSERT_GT(nl, start) << "bare LF at " << nl;
    ASSERT_EQ(s[nl - 1], '\r') << "bare LF at " << nl;
    const std::string_view line(s.data() + start, nl - 1 - start);
    ASSERT_EQ(line.find('\r'), std::string_view::npos) << "bare CR in line: " << line;
    ASSERT_LE(line.size(), 998u);
    start = nl + 1;
  }
}

std::vector<std::string> header_block(const std::string& s) {
  std::vector<std::string> names;
  std::istringstream in(s.substr(0, s.find("\r\n\r\n") + 2));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t') continue;
    names.push_back(line.substr(0, line.find(':')));
  }
  return names;
}

class MimeTest : public ::testing::Test {
 protected:
  TempDir dir;
  TempDir staging;

  Message make_message(const std::vector<FileCandidate>& files, std::uint64_t budget = 10 * 1024 * 1024) {
    Message m;
    m.envelope = {"alice@gpu041", {"bob@example.org", "carol@example.org"}};
    m.subject = kSubject + "\r\nBcc: evil@x";
    m.body_text = "Job 4711 ended with exit code 1.\n\nDiagnosis: CUDA out of memory \xE2\x80\x94 try a smaller batch.\n"
                  "A line with = signs and trailing space \n.\nFrom here on\n" + std::string(200, 'z') + "\n";
    m.attachments = plan_attachments(files, budget, staging.path());
    m.extra_headers = {{"X-Gpualert-Class", "cuda_oom"}, {"X-Job", "j\xC3\xB6" "b\r\nBcc: evil@x"}, {"Content-Type", "text/html"}};
    return m;
  }

  std::string render(const Message& m) {
    std::ostringstream os;
    write_mime(m, os);
    EXPECT_TRUE(os.good());
    return os.str();
  }
};

TEST_F(MimeTest, MessageParsesAndAttachmentsRoundTripByteForByte) {
  const std::string log = testing::log_text(100 * 1024) + "\r\nmixed\rline endings\n";
  const std::string bin = testing::random_bytes(12345);
  const std::string big = testing::log_text(3 * 1024 * 1024);
  write_bytes(dir / "output.log", log);
  write_bytes(dir / "weights.bin", bin);
  write_bytes(dir / "big.log", big);
  write_bytes(dir / "r\xC3\xA9sultat \"final\".txt", "accents\n");
  const Message m = make_message({{dir / "output.log", "output.log"},
                                  {dir / "weights.bin", "weights.bin", "application/octet-stream"},
                                  {dir / "big.log", "big.log"},
                                  {dir / "r\xC3\xA9sultat \"final\".txt", "r\xC3\xA9sultat \"final\".txt"}},
                                 2 * 1024 * 1024);
  ASSERT_EQ(m.attachments.attached.size(), 4u);
  ASSERT_TRUE(m.attachments.attached[2].compressed);
  const std::string eml = render(m);
  expect_crlf_only(eml);
  write_bytes(dir / "msg.eml", eml);

  // One of each owned header; the injected Bcc and Content-Type did not appear.
  const auto names = header_block(eml);
  for (const char* h : {"From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"}) {
    EXPECT_EQ(std::count(names.begin(), names.end(), h), 1) << h;
  }
  EXPECT_EQ(std::count(names.begin(), names.end(), "Bcc"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "X-Gpualert-Class"), 1);

  const json r = testing::parse_mime(dir / "msg.eml", dir / "parts");
  EXPECT_TRUE(r["defects"].empty()) << r["defects"].dump();
  EXPECT_EQ(r["content_type"], "multipart/mixed");
  EXPECT_EQ(r["subject"], kSubject + "  Bcc: evil@x");
  EXPECT_EQ(r["from"], "alice@gpu041");
  EXPECT_EQ(r["to"], "bob@example.org, carol@example.org");
  EXPECT_TRUE(r["date_ok"].get<bool>());
  bool saw_job = false;
  for (const auto& h : r["headers"]) {
    EXPECT_NE(h[0], "Bcc");
    if (h[0] == "X-Job") {
      saw_job = true;
      EXPECT_EQ(h[1], "j\xC3\xB6" "b  Bcc: evil@x");
    }
  }
  EXPECT_TRUE(saw_job);

  const auto& parts = r["parts"];
  ASSERT_EQ(parts.size(), 5u) << r.dump(1);
  EXPECT_EQ(parts[0]["content_type"], "text/plain");
  EXPECT_EQ(parts[0]["charset"], "utf-8");
  EXPECT_EQ(parts[0]["cte"], "quoted-printable");
  EXPECT_EQ(parts[0]["text"], m.body_text);
  EXPECT_EQ(parts[1]["filename"], "output.log");
  EXPECT_EQ(parts[1]["disposition"], "attachment");
  EXPECT_EQ(parts[1]["cte"], "base64");
  EXPECT_EQ(read_bytes(parts[1]["path"].get<std::string>()), log);
  EXPECT_EQ(parts[2]["filename"], "weights.bin");
  EXPECT_EQ(parts[2]["content_type"], "application/octet-stream");
  EXPECT_EQ(read_bytes(parts[2]["path"].get<std::string>()), bin);
  EXPECT_EQ(parts[3]["filename"], "big.log.gz");
  EXPECT_EQ(parts[3]["content_type"], "application/gzip");
  EXPECT_EQ(read_bytes(parts[3]["path"].get<std::string>()), read_bytes(m.attachments.attached[2].source));
  EXPECT_EQ(parts[4]["filename"], "r\xC3\xA9sultat _final_.txt");
  EXPECT_EQ(read_bytes(parts[4]["path"].get<std::string>()), "accents\n");
}

TEST_F(MimeTest, BoundaryIsFreshAndAbsentFromContent) {
  write_bytes(dir / "a.txt", "--=_gpualert_ looks like a boundary\n");
  const Message m = make_message({{dir / "a.txt", "a.txt"}});
  const std::string a = render(m);
  const std::string b = render(m);
  const auto boundary_of = [](const std::string& s) {
    const auto p = s.find("boundary=\"") + 10;
    return s.substr(p, s.find('"', p) - p);
  };
  EXPECT_NE(boundary_of(a), boundary_of(b));
  const std::string bd = boundary_of(a);
  // Exactly: 1 text part + 1 attachment opening delimiters, and one close.
  std::size_t count = 0;
  for (std::size_t p = a.find("\r\n--" + bd); p != std::string::npos; p = a.find("\r\n--" + bd, p + 1)) ++count;
  EXPECT_EQ(count, 3u);
  EXPECT_TRUE(a.ends_with("\r\n--" + bd + "--\r\n"));
}

TEST_F(MimeTest, AttachmentGoneAtWriteTimeBecomesANoteNotABrokenMessage) {
  write_bytes(dir / "output.log", "will vanish\n");
  write_bytes(dir / "kept.log", "kept\n");
  const Message m = make_message({{dir / "output.log", "output.log"}, {dir / "kept.log", "kept.log"}});
  std::filesystem::remove(dir / "output.log");
  const std::string eml = render(m);
  expect_crlf_only(eml);
  write_bytes(dir / "msg.eml", eml);
  const json r = testing::parse_mime(dir / "msg.eml", dir / "parts");
  EXPECT_TRUE(r["defects"].empty()) << r["defects"].dump();
  ASSERT_EQ(r["parts"].size(), 3u) << r.dump(1);
  EXPECT_EQ(r["parts"][1]["content_type"], "text/plain");
  EXPECT_TRUE(r["parts"][1]["filename"].is_null());
  const std::string note = r["parts"][1]["text"];
  EXPECT_NE(note.find("output.log could not be read"), std::string::npos) << note;
  EXPECT_NE(note.find("No such file or directory"), std::string::npos) << note;
  EXPECT_EQ(r["parts"][2]["filename"], "kept.log");
}

TEST_F(MimeTest, GrownFileIsCutAtTheSnapshotAndShrunkFileIsNoted) {
  write_bytes(dir / "grows.log", "0123456789");
  write_bytes(dir / "shrinks.log", std::string(1000, 's'));
  const Message m = make_message({{dir / "grows.log", "grows.log"}, {dir / "shrinks.log", "shrinks.log"}});
  write_bytes(dir / "grows.log", "0123456789 and more later");
  write_bytes(dir / "shrinks.log", std::string(10, 's'));
  write_bytes(dir / "msg.eml", render(m));
  const json r = testing::parse_mime(dir / "msg.eml", dir / "parts");
  EXPECT_TRUE(r["defects"].empty()) << r["defects"].dump();
  ASSERT_EQ(r["parts"].size(), 4u) << r.dump(1);
  EXPECT_EQ(read_bytes(r["parts"][1]["path"].get<std::string>()), "0123456789");
  EXPECT_EQ(read_bytes(r["parts"][2]["path"].get<std::string>()), std::string(10, 's'));
  const std::string note = r["parts"][3]["text"];
  EXPECT_NE(note.find("shrinks.log is incomplete"), std::string::npos) << note;
}

TEST_F(MimeTest, NoAttachmentsStillValidMultipart) {
  Message m = make_message({});
  m.body_text = "";
  write_bytes(dir / "msg.eml", render(m));
  const json r = testing::parse_mime(dir / "msg.eml", dir / "parts");
  EXPECT_TRUE(r["defects"].empty()) << r["defects"].dump();
  ASSERT_EQ(r["parts"].size(), 1u);
  EXPECT_EQ(r["parts"][0]["text"], "");
}

TEST_F(MimeTest, HtmlGoesAsAnAlternativeWithItsPictureBesideIt) {
  write_bytes(dir / "output.log", "log\n");
  Message m = make_message({{dir / "output.log", "output.log"}});
  m.body_html = "<p>Job 4711 \xE2\x80\x94 <img src=\"cid:chart@gpualert\"></p>\n" + std::string(1500, 'h') + "\n";
  const std::string png = testing::random_bytes(3000);
  m.inline_parts = {{"chart@gpualert", "image/png", "chart.png", png},
                    // Not a Content-ID a header may carry, nor a name: both left out, the message stays whole.
                    {"x>\r\nBcc: evil@x", "image/png", "evil.png", "x"},
                    {"ok@gpualert", "image/png", "n\xC3\xA4me.png", "x"}};
  const std::string eml = render(m);
  expect_crlf_only(eml);
  EXPECT_EQ(eml.find("Bcc: evil"), std::string::npos);
  write_bytes(dir / "msg.eml", eml);
  const json r = testing::parse_mime(dir / "msg.eml", dir / "parts");
  EXPECT_TRUE(r["defects"].empty()) << r["defects"].dump();
  const auto& parts = r["parts"];
  ASSERT_EQ(parts.size(), 4u) << r.dump(1);
  EXPECT_EQ(parts[0]["content_type"], "text/plain");
  EXPECT_EQ(parts[0]["text"], m.body_text);
  EXPECT_EQ(parts[1]["content_type"], "text/html");
  EXPECT_EQ(parts[1]["charset"], "utf-8");
  std::string html = read_bytes(parts[1]["path"].get<std::string>());  // CRLF on the wire
  for (std::size_t at; (at = html.find("\r\n")) != std::string::npos;) html.erase(at, 1);
  EXPECT_EQ(html, m.body_html);
  EXPECT_EQ(parts[2]["content_type"], "image/png");
  EXPECT_EQ(parts[2]["disposition"], "inline");
  EXPECT_EQ(read_bytes(parts[2]["path"].get<std::string>()), png);
  EXPECT_EQ(parts[3]["filename"], "output.log");
  EXPECT_NE(eml.find("Content-Type: multipart/alternative;"), std::string::npos);
  EXPECT_NE(eml.find("Content-Type: multipart/related; type=\"text/html\";"), std::string::npos);
  EXPECT_NE(eml.find("Content-ID: <chart@gpualert>\r\n"), std::string::npos);
}

// Counts bytes without keeping them.
class CountingBuf : public std::streambuf {
 public:
  std::uint64_t count = 0;
 protected:
  int_type overflow(int_type c) override { ++count; return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { count += static_cast<std::uint64_t>(n); return n; }
};

TEST_F(MimeTest, LargeAttachmentIsStreamedNotLoaded) {
  constexpr std::uint64_t kSize = 96ull * 1024 * 1024;  // several times the memory bound below
  {
    std::ofstream f(dir / "huge.bin");
  }
  std::filesystem::resize_file(dir / "huge.bin", kSize);  // sparse: costs no disk
  Message with = make_message({{dir / "huge.bin", "huge.bin", "application/octet-stream"}}, 1ull << 40);
  ASSERT_EQ(with.attachments.attached.size(), 1u);
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  CountingBuf counter;
  std::ostream os(&counter);
  write_mime(with, os);
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  EXPECT_GT(counter.count, with.attachments.attached[0].encoded_size);
  EXPECT_LT(counter.count, with.attachments.attached[0].encoded_size + 4096);
  // Peak memory grew by far less than the file (ru_maxrss is in KiB).
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 32 * 1024);
}

}  // namespace
}  // namespace gpualert::notify
