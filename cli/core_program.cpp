#include "core_program.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

namespace gpualert::cli {

std::string core_program() {
  namespace fs = std::filesystem;
  if (const char* p = std::getenv("GPUALERT_CORE"); p && *p == '/') return p;
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    const fs::path dir = fs::path(self).parent_path();
    for (const fs::path& p : {dir / "gpualert-core", dir.parent_path() / "libexec" / "gpualert" / "gpualert-core"})
      if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return std::string(GPUALERT_LIBEXECDIR) + "/gpualert/gpualert-core";
}

void exec_core(int argc, char** argv) {
  const std::string core = core_program();
  std::vector<char*> args;
  args.push_back(const_cast<char*>("gpualert"));  // what the user typed, for usage messages
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(core.c_str(), args.data());
  std::cerr << "gpualert: cannot start " << core << ": " << std::strerror(errno) << "\n";
  ::_exit(127);
}

}  // namespace gpualert::cli
