#pragma once
// The non-silent budget: decides which files fit; everything else is listed, never dropped quietly.
#include <cstdint>
#include <vector>

#include "gpualert/notifier/message.hpp"

namespace gpualert::notify {

// Takes CANDIDATES in priority order (the run's log first). A file that does not
// fit raw may still fit gzip-compressed. Unreadable, missing or non-regular files
// are omitted with the reason.
AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes);

// Size of RAW bytes after base64 with 76-column lines and CRLF.
std::uint64_t base64_encoded_size(std::uint64_t raw);

}  // namespace gpualert::notify
