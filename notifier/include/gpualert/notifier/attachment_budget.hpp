#pragma once
// The non-silent budget: decides which files fit; everything else is listed, never dropped quietly.
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <vector>

#include "gpualert/notifier/message.hpp"

namespace gpualert::notify {

// Takes CANDIDATES in priority order (the run's log first). A file that does not
// fit raw may still fit gzip-compressed. Unreadable, missing or non-regular files
// are omitted with the reason.
// Compressed copies go to $TMPDIR (or /tmp); see the overload below.
AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes);

// Same, with compressed copies written (mode 0600) into STAGING_DIR, created if
// missing. The MIME writer reads them; each is deleted when the last copy of
// the plan that made it is destroyed (PlannedFile::staged).
// GIVE_UP: compression still running then is abandoned (the file is named as not
// attached, with the reason).
AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes,
                                const std::filesystem::path& staging_dir,
                                std::chrono::steady_clock::time_point give_up = std::chrono::steady_clock::time_point::max());
AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes,
                                std::chrono::steady_clock::time_point give_up);

// Size of RAW bytes after base64 with 76-column lines and CRLF.
std::uint64_t base64_encoded_size(std::uint64_t raw);

}  // namespace gpualert::notify
