#pragma once
// The SMTP password lives in a file only its owner can read, never in argv,
// the environment or a log.
#include <filesystem>
#include <string>

namespace gpualert::notify {

struct PasswordResult {
  bool ok = false;
  std::string password;  // one trailing newline (LF or CRLF) removed
  std::string error;     // readable reason when !ok; never contains the password
};

// Refuses anything but a regular file (symlinks are not followed) owned by the
// current user with no permission bits for group or others (like ssh keys).
PasswordResult read_password_file(const std::filesystem::path& path);

// The same strictness for any secret file (the webhook channels): its whole content,
// at most MAX_BYTES, in .password. WHAT names it in errors ("channels file").
PasswordResult read_private_file(const std::filesystem::path& path, const std::string& what, std::size_t max_bytes);

}  // namespace gpualert::notify
