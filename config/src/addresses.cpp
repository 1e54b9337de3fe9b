#include "gpualert/config/addresses.hpp"

#include <cctype>

namespace gpualert::config {

// Deliberately narrower than RFC 5322: letters, digits and . _ % + - = in the
// local part and the domain. Anything that could be a path ("../../etc"), a
// header ("\r\nBcc:") or shell syntax is refused.
bool valid_address(const std::string& addr) {
  if (addr.empty() || addr.size() > 254) return false;
  int ats = 0;
  for (unsigned char c : addr) {
    if (c == '@') {
      ++ats;
      continue;
    }
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '%' && c != '+' && c != '-' && c != '=') return false;
  }
  if (ats > 1 || addr.front() == '@' || addr.back() == '@') return false;
  if (addr.front() == '.' || addr.find("..") != std::string::npos) return false;
  // Never something a program could take for an option ("-oi", "-fX"), e.g. sendmail.
  if (addr.front() == '-') return false;
  return true;
}

bool parse_address_list(const std::string& text, std::vector<std::string>& out, std::string& why) {
  out.clear();
  std::string cur;
  auto flush = [&]() -> bool {
    const std::size_t b = cur.find_first_not_of(" \t");
    const std::size_t e = cur.find_last_not_of(" \t");
    const std::string a = b == std::string::npos ? "" : cur.substr(b, e - b + 1);
    cur.clear();
    if (a.empty()) return true;
    if (!valid_address(a)) {
      why = "not a mail address: '" + a.substr(0, 80) + "'";
      return false;
    }
    out.push_back(a);
    return true;
  };
  for (char c : text) {
    if (c == ',') {
      if (!flush()) return false;
    } else {
      cur += c;
    }
  }
  if (!flush()) return false;
  if (out.empty()) {
    why = "no address given";
    return false;
  }
  return true;
}

}  // namespace gpualert::config
