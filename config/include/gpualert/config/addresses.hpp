#pragma once
// Mail addresses as users type them: checked so nothing hostile reaches a header.
#include <string>
#include <vector>

namespace gpualert::config {

// "local@domain" or a bare local name; no spaces, controls, quotes or brackets.
bool valid_address(const std::string& addr);
// "a@x, b@y" -> {"a@x", "b@y"}; false with WHY when any entry is invalid or the list is empty.
bool parse_address_list(const std::string& text, std::vector<std::string>& out, std::string& why);

}  // namespace gpualert::config
