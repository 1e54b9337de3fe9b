#pragma once
// The channels file: each chat or webhook channel's URL, a secret (anyone who has it can
// post). Lines "KIND:NAME URL" ("slack:team-ml https://hooks.slack.com/services/..."),
// '#' comments; the file must be owned by the reader and private (like the password file).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpualert::notify {

struct ChannelBook {
  std::map<std::string, std::string> urls;  // "slack:team-ml" -> URL
  std::vector<std::string> problems;        // "line 3: ..." (the line's URL is never quoted)
};

// Nothing, with WHY, when the file cannot be used at all.
std::optional<ChannelBook> read_channel_book(const std::filesystem::path& path, std::string& why);

// "KIND:NAME URL" text to a book (for tests and `gpualert config check`).
ChannelBook parse_channel_book(const std::string& text);

}  // namespace gpualert::notify
