#include "gpualert/common/fallback_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "gpualert/common/durable_file.hpp"

namespace gpualert {

std::filesystem::path fallback_dir_path() {
  const char* tmp = std::getenv("TMPDIR");
  return std::filesystem::path(tmp && *tmp == '/' ? tmp : "/tmp") / ("gpualert-" + std::to_string(::getuid()));
}

std::filesystem::path private_fallback_dir() {
  const std::filesystem::path base = fallback_dir_path();
  make_dirs(base, 0700);
  struct stat st {};
  if (::lstat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() || (st.st_mode & 077))
    throw std::runtime_error(base.string() + " is not a private directory of this user");
  return base;
}

}  // namespace gpualert
