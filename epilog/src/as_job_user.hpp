#pragma once
// Runs the part of the helper that reads what the job's user wrote (the log:
// RE2, JSON, zlib on hostile bytes) in a child that has become that user, so a
// parser bug is the user's own process, never root. The verdict comes back
// over a pipe in the lossless wire format.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::epilog {

// WORK runs in the child with UID/GID (no supplementary groups). nullopt with
// WHY when the child could not drop privileges, crashed, overran LIMIT or
// returned nothing usable.
std::optional<classify::Verdict> classify_as_user(uid_t uid, gid_t gid, const std::function<classify::Verdict()>& work,
                                                  std::chrono::seconds limit, std::string& why);

}  // namespace gpualert::epilog
