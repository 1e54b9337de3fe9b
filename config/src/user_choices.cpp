#include "gpualert/config/user_choices.hpp"

#include <algorithm>

#include "gpualert/config/loader.hpp"

namespace gpualert::config {

const std::vector<std::string>& user_keys() {
  static const std::vector<std::string> keys = {"notify", "to", "html", "digest_window", "live", "stall_after",
                                                  "cancel_after_stall"};
  return keys;
}

// Each line is checked by the same code as the site's files (a Loader of its own), and
// only the user's keys are taken from it.
UserChoices read_user_choices(std::string_view text) {
  UserChoices c;
  std::size_t start = 0;
  for (int n = 1; start < text.size(); ++n) {
    const std::size_t nl = text.find('\n', start);
    std::string line(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const auto eq = line.find('=');
    auto trim = [](std::string s) {
      const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    const std::string key = trim(line.substr(0, eq));
    if (key.empty()) continue;
    const std::string where = "line " + std::to_string(n) + ": ";
    if (eq == std::string::npos) {
      c.notes.push_back(where + "not key = value; ignored");
      continue;
    }
    if (std::find(user_keys().begin(), user_keys().end(), key) == user_keys().end()) {
      c.notes.push_back(where + key.substr(0, 40) + " is the site's to set, not a user's; ignored");
      continue;
    }
    Loader l;
    l.apply_value(key, trim(line.substr(eq + 1)), "line " + std::to_string(n));
    if (!l.problems().empty()) {
      c.notes.push_back(l.problems().front().text() + "; ignored");
      continue;
    }
    const Settings& s = l.settings();
    if (key == "notify") c.notify = s.notify;
    else if (key == "to") c.to = s.to;
    else if (key == "html") c.html = s.html;
    else if (key == "digest_window") c.digest_window = s.digest_window;
    else if (key == "live") c.live = s.live;
    else if (key == "stall_after") c.stall_after = s.stall_after;
    else if (key == "cancel_after_stall") c.cancel_after_stall = s.cancel_after_stall;
  }
  return c;
}

}  // namespace gpualert::config
