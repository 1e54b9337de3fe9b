#include "gpualert/notifier/channel_book.hpp"

#include <cctype>
#include <cstring>
#include <sstream>

#include "gpualert/notifier/password_file.hpp"

namespace gpualert::notify {
namespace {

bool channel_token(const std::string& t) {
  const auto colon = t.find(':');
  if (colon == std::string::npos || colon + 1 >= t.size() || t.size() > 80) return false;
  const std::string kind = t.substr(0, colon);
  if (kind != "slack" && kind != "mattermost" && kind != "teams" && kind != "webhook") return false;
  for (std::size_t i = colon + 1; i < t.size(); ++i) {
    const char c = t[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// http(s) only, and nothing a header or a shell could take for syntax.
bool usable_url(const std::string& u) {
  if (u.rfind("https://", 0) != 0 && u.rfind("http://", 0) != 0) return false;
  for (unsigned char c : u)
    if (c <= 32 || c >= 127 || c == '"' || c == '\\' || c == '`') return false;
  return u.size() <= 2048;
}

}  // namespace

ChannelBook parse_channel_book(const std::string& text) {
  ChannelBook b;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream ls(line);
    std::string token, url, extra;
    if (!(ls >> token) || token[0] == '#') continue;
    const std::string where = "line " + std::to_string(n) + ": ";
    if (!channel_token(token)) {
      b.problems.push_back(where + "'" + token.substr(0, 80) + "' is not KIND:NAME (kinds: slack, mattermost, teams, webhook)");
      continue;
    }
    if (!(ls >> url) || (ls >> extra)) {
      b.problems.push_back(where + token + " needs exactly one URL after it");
      continue;
    }
    if (!usable_url(url)) {
      b.problems.push_back(where + token + "'s URL is not an http(s) URL of printable characters");
      continue;
    }
    if (b.urls.count(token)) b.problems.push_back(where + token + " is defined again (the later line wins)");
    b.urls[token] = url;
  }
  return b;
}

std::optional<ChannelBook> read_channel_book(const std::filesystem::path& path, std::string& why) {
  PasswordResult r = read_private_file(path, "channels file", 1 << 20);
  if (!r.ok) {
    why = r.error;
    return std::nullopt;
  }
  ChannelBook b = parse_channel_book(r.password);
  ::explicit_bzero(r.password.data(), r.password.size());
  return b;
}

}  // namespace gpualert::notify
