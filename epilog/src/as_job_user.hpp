#pragma once
// Runs the parts of the helper that touch what the job's user wrote (their
// task logs; the log's parsing: RE2, JSON, zlib on hostile bytes; paths they
// chose) in a child that has become that user, so the kernel checks the user's
// rights and a parser bug is the user's own process, never root. The child's
// answer comes back over a pipe as bytes (the verdict in the lossless wire format).
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::epilog {

struct JobUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups; empty: none
};

// Drops this process to USER for good (groups, gid, uid); false when it could not,
// or could still regain root. Without root, a USER that is the caller itself is kept.
bool become_user(const JobUser& user);

// WORK runs in a child as USER; its string comes back. nullopt with WHY when the
// child could not drop privileges, crashed, threw, overran LIMIT or said more than
// MAX_BYTES. Without root, a USER that is the caller itself runs unchanged.
std::optional<std::string> run_as_user(const JobUser& user, const std::function<std::string()>& work,
                                       std::chrono::seconds limit, std::string& why,
                                       std::size_t max_bytes = 16u << 20);

// The classifier's run as UID/GID (no supplementary groups).
std::optional<classify::Verdict> classify_as_user(uid_t uid, gid_t gid, const std::function<classify::Verdict()>& work,
                                                  std::chrono::seconds limit, std::string& why);

// The user's supplementary groups as the system lists them (for checks that must
// see what Slurm's launch, which uses them, saw).
std::vector<gid_t> groups_of(const std::string& user, gid_t gid);

}  // namespace gpualert::epilog
