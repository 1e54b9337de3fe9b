#include "gpualert/config/destinations.hpp"

#include <algorithm>
#include <cctype>

#include "gpualert/config/addresses.hpp"

namespace gpualert::config {
namespace {

constexpr const char* kKinds[] = {"slack", "mattermost", "teams", "webhook"};

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  const std::size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::string channel_kind(const std::string& token) {
  const std::size_t colon = token.find(':');
  if (colon == std::string::npos) return "";
  const std::string kind = token.substr(0, colon), name = token.substr(colon + 1);
  if (std::none_of(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return kind == k; })) return "";
  if (name.empty() || name.size() > 64 || !std::isalnum(static_cast<unsigned char>(name.front()))) return "";
  const bool clean = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
  return clean ? kind : "";
}

bool is_channel(const std::string& token) { return !channel_kind(token).empty(); }

bool parse_destination_list(const std::string& text, std::vector<std::string>& out, std::string& why) {
  out.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    const bool mailto = item.rfind("mailto:", 0) == 0;
    if (mailto) item = item.substr(7);
    if (!valid_address(item) && (mailto || !is_channel(item))) {
      why = "neither a mail address nor a channel (slack:NAME, mattermost:NAME, teams:NAME, webhook:NAME): '" +
            item.substr(0, 80) + "'";
      return false;
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  if (out.empty()) {
    why = "no address given";
    return false;
  }
  return true;
}

std::vector<std::string> mail_addresses(const std::vector<std::string>& destinations) {
  std::vector<std::string> out;
  for (const auto& d : destinations)
    if (!is_channel(d)) out.push_back(d);
  return out;
}

std::vector<std::string> channels(const std::vector<std::string>& destinations) {
  std::vector<std::string> out;
  for (const auto& d : destinations)
    if (is_channel(d)) out.push_back(d);
  return out;
}

}  // namespace gpualert::config
