#include "gpualert/config/addresses.hpp"

namespace gpualert::config {

bool valid_address(const std::string& addr) {
  if (addr.empty() || addr.size() > 254) return false;
  int ats = 0;
  for (unsigned char c : addr) {
    if (c <= 0x20 || c >= 0x7F) return false;
    if (c == '<' || c == '>' || c == '"' || c == ',' || c == ';' || c == '(' || c == ')' || c == '\\')
      return false;
    if (c == '@') ++ats;
  }
  if (ats > 1 || addr.front() == '@' || addr.back() == '@') return false;
  return true;
}

bool parse_address_list(const std::string& text, std::vector<std::string>& out, std::string& why) {
  out.clear();
  std::string cur;
  auto flush = [&]() -> bool {
    std::size_t b = cur.find_first_not_of(" \t");
    std::size_t e = cur.find_last_not_of(" \t");
    std::string a = b == std::string::npos ? "" : cur.substr(b, e - b + 1);
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
