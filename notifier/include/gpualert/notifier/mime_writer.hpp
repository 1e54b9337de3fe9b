#pragma once
// Renders a Message as an RFC 5322 / MIME multipart message.
#include <ostream>
#include <string>

#include "gpualert/notifier/message.hpp"

namespace gpualert::notify {

// Writes the whole message to OUT, streaming attachments from disk (no file is
// loaded whole into memory). Adds Date, Message-ID, MIME-Version. Header values
// are stripped of CR/LF (no header injection) and encoded per RFC 2047 when not ASCII.
void write_mime(const Message& msg, std::ostream& out);

}  // namespace gpualert::notify
