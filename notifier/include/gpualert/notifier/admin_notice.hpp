#pragma once
// The one message the admins get when a notification is given up (refused for
// good by the relay, or expired): whose it was, why, and where it now lies.
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"
#include "gpualert/notifier/outbox.hpp"

namespace gpualert::notify {

Message admin_notice(const StoredMessage& given_up, const std::string& why, const std::vector<std::string>& admin_to,
                     const std::string& from);

}  // namespace gpualert::notify
