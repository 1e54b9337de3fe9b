#pragma once
// Where a verdict goes: mail addresses, and chat or webhook channels the admin (or, for
// `gpualert run`, the user) defined in a private channels file. A list such as
// "mailto:a@b, slack:team-ml, b@c" names both; a channel is named by its kind and name,
// never by its URL (the URL is a secret: it stays in the channels file).
#include <string>
#include <vector>

namespace gpualert::config {

// "slack:team-ml", "mattermost:ops", "teams:gpu-admins", "webhook:tickets": kind, colon,
// a name of letters, digits, '.', '_' and '-' (at most 64).
bool is_channel(const std::string& token);
// The kind of a channel token ("slack"), empty for anything else.
std::string channel_kind(const std::string& token);

// "a@x, mailto:b@y, slack:ml" -> {"a@x", "b@y", "slack:ml"}; false with WHY when an entry
// is neither an address nor a channel, or the list is empty.
bool parse_destination_list(const std::string& text, std::vector<std::string>& out, std::string& why);

// The mail addresses of a destination list, and its channels.
std::vector<std::string> mail_addresses(const std::vector<std::string>& destinations);
std::vector<std::string> channels(const std::vector<std::string>& destinations);

}  // namespace gpualert::config
