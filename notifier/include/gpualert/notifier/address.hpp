#pragma once
// Envelope addresses go into SMTP commands verbatim, so they are checked first.
#include <string_view>

namespace gpualert::notify {

// True for a bare ASCII address ("alice@gpu041" or a local "alice") with no
// space, control byte or character that could break an SMTP command or header.
bool is_valid_address(std::string_view addr);

}  // namespace gpualert::notify
