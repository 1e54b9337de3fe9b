#include "core_program.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "gpualert/common/helper_program.hpp"

namespace gpualert::cli {

std::string core_program() {
  if (const char* p = std::getenv("GPUALERT_CORE"); p && *p == '/') return p;
  return helper_program("gpualert-core", GPUALERT_LIBEXECDIR).string();
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
