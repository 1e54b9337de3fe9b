// Any bytes as a message's subject, body, header values and file name: the MIME
// writer's output must keep its header block intact (no line a hostile value could
// turn into a header of its own), lines of at most 998 bytes, and CRLF endings.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/mime_writer.hpp"

using namespace gpualert::notify;

namespace {

// Splits the input at 0xFF bytes into up to N fields.
std::vector<std::string> fields(std::string_view in, std::size_t n) {
  std::vector<std::string> out;
  while (out.size() + 1 < n) {
    const auto at = in.find('\xff');
    if (at == std::string_view::npos) break;
    out.emplace_back(in.substr(0, at));
    in.remove_prefix(at + 1);
  }
  out.emplace_back(in);
  out.resize(n);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto f = fields(std::string_view(reinterpret_cast<const char*>(data), size), 4);
  Message m;
  m.envelope.from = "gpualert@node1.example.org";
  m.envelope.to = {"alice@example.org"};
  m.subject = f[0];
  m.body_text = f[1];
  m.extra_headers = {{"X-Gpualert-Class", f[2]}, {"X-Gpualert-Job", f[3]}};
  m.attachments.omitted.push_back({"/tmp/" + f[3], 12, f[2]});
  std::ostringstream out;
  write_mime(m, out);
  const std::string s = out.str();
  const auto end = s.find("\r\n\r\n");
  if (end == std::string::npos) std::abort();
  std::size_t pos = 0;
  while (pos < s.size()) {
    const auto eol = s.find("\r\n", pos);
    if (eol == std::string::npos) break;
    const std::string_view line(s.data() + pos, eol - pos);
    if (line.size() > 998) std::abort();
    if (line.find('\r') != std::string_view::npos || line.find('\n') != std::string_view::npos) std::abort();
    if (pos < end) {  // a header line: "Name: value" or a folded continuation
      const bool folded = !line.empty() && (line[0] == ' ' || line[0] == '\t');
      const auto colon = line.find(':');
      if (!folded && (colon == std::string_view::npos || colon == 0)) std::abort();
      if (!folded) {
        const std::string_view name = line.substr(0, colon);
        static const char* const known[] = {"From", "To", "Subject", "Date", "Message-ID", "MIME-Version",
                                            "Content-Type", "Content-Transfer-Encoding", "X-Gpualert-Class",
                                            "X-Gpualert-Job", "Auto-Submitted", "X-Auto-Response-Suppress",
                                            "Precedence", "X-Mailer"};
        bool ok = false;
        for (const char* k : known) ok = ok || name == k;
        if (!ok) std::abort();  // a header the writer never writes: injected
      }
    }
    pos = eol + 2;
  }
  return 0;
}
