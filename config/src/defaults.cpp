// Defaults derived from the environment: who, where, and the XDG directories.
#include "gpualert/config/defaults.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace gpualert::config {

std::string current_user() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return pw->pw_name;
  if (const char* u = std::getenv("USER"); u && *u) return u;
  return "uid" + std::to_string(::getuid());
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::filesystem::path home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h == '/') return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "/tmp";
}

std::filesystem::path xdg_dir(const char* var, const char* fallback_under_home) {
  // The XDG spec says relative values are invalid and must be ignored.
  if (const char* v = std::getenv(var); v && *v == '/') return v;
  return home_dir() / fallback_under_home;
}

}  // namespace gpualert::config
