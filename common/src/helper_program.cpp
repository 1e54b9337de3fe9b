#include "gpualert/common/helper_program.hpp"

#include <unistd.h>

#include <climits>

namespace gpualert {

std::filesystem::path helper_program(const std::string& name, const std::string& libexecdir) {
  namespace fs = std::filesystem;
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    const fs::path dir = fs::path(self).parent_path();
    for (const fs::path& p : {dir / name, dir.parent_path() / "libexec" / "gpualert" / name})
      if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return fs::path(libexecdir) / "gpualert" / name;
}

}  // namespace gpualert
