#pragma once
// The node's spool, shared by the SPANK plugin (which writes it as root inside
// slurmstepd) and the epilog helper (which reads it). Layout:
//   <spool>/                 root-owned, not writable by others
//   <spool>/jobs/<jobid>/    root:root 0711: the user opens their own files by name, never plants links
//     owner                                 "uid=N": the job this directory is bound to
//     <step>.<node>.<task>.log / .streams   the task's output, <uid>:<gid> 0600
//     step-<step>.<node>.json              the step record (task exit statuses)
//   <spool>/outbox/          the helper's durable outbox (root 0700)
//   <spool>/stale/           job directories of an earlier job with a reused id (root 0700)
//   <spool>/admin.log        problems for the admin, never shown to a job (root 0600)
// Every open is relative to a directory descriptor with O_NOFOLLOW.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpualert/common/unique_fd.hpp"

namespace gpualert::spool {

// An owned directory descriptor for the *at() calls below (closed on destruction).
using DirFd = UniqueFd;

// Opens PATH, creating it (0755) if missing. Refuses a symlink, a non-directory,
// or a directory not owned by root or writable by group/others. Error in WHY.
std::optional<DirFd> open_spool_root(const std::string& path, std::string& why);

inline constexpr const char* kOwnerFile = "owner";
inline constexpr const char* kAdminLog = "admin.log";

// Opens <spool>/jobs/<jobid>, bound to the job's user UID. With CREATE it makes
// the directory (root 0711) and records UID; a directory an earlier job with the
// same id left (another owner) is moved to stale/ first and NOTE says so. Without
// CREATE a directory bound to another user is refused. Refuses anything not root's.
std::optional<DirFd> open_job_dir(const DirFd& spool, std::uint32_t jobid, uid_t uid, bool create, std::string& why,
                                  std::string* note = nullptr);

// Whether JOB's directory says its job was already notified (a "notified.<run>" marker).
bool was_notified(const DirFd& job);
// Moves <spool>/jobs/<jobid> to stale/ (kept for the admin until expiry).
bool retire_job_dir(const DirFd& spool, std::uint32_t jobid, std::string& why);

// The names in directory DIRFD, without "." and ".." (opened anew, so DIRFD's offset is untouched).
std::vector<std::string> list_names(int dirfd);

// Whether JOB holds a step record (a step that asked for a message ended here).
bool has_step_records(const DirFd& job);

// Appends one line (control bytes neutralised) to <spool>/admin.log; best effort.
void admin_log(const DirFd& spool, const std::string& line);

// Creates a new file NAME (no following links, never reusing an existing name:
// NAME.1, NAME.2... instead) owned by UID:GID, mode 0600. Returns the fd
// (O_CLOEXEC, O_APPEND) and the name actually used.
int create_owned_file(const DirFd& dir, const std::string& name, uid_t uid, gid_t gid, std::string& used,
                      std::string& why);

// Writes CONTENT to NAME atomically (temp file, fsync, renameat), owned UID:GID 0600.
bool write_atomic_at(const DirFd& dir, const std::string& name, const std::string& content, uid_t uid, gid_t gid,
                     std::string& why);

// Reads a small regular file NAME in DIR without following links (at most MAX bytes).
std::optional<std::string> read_at(const DirFd& dir, const std::string& name, std::size_t max, std::string& why);

// A name that is safe as one path component: no '/', no "..", printable.
std::string safe_component(const std::string& s);

}  // namespace gpualert::spool
