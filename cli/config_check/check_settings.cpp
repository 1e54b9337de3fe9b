#include <unistd.h>

#include "checks.hpp"

namespace gpualert::cli::check {

config::Loader check_settings(Report& r, const Options& o) {
  config::Loader l;
  std::error_code ec;
  const auto system = config::system_config_path();
  if (std::filesystem::exists(system, ec)) r.ok("config", "read", system.string());
  else r.info("config", "no system file (built-in defaults)", system.string());
  l.apply_site_file(system);
  std::optional<std::filesystem::path> user = o.config_file;
  if (!user && ::getuid() != 0) user = config::user_config_path();
  if (user) {
    if (std::filesystem::exists(*user, ec)) r.ok("config", "read", user->string());
    else if (o.config_file) r.fail("config", "no such file", user->string());
  }
  if (user) l.apply_file(*user);
  l.apply_environment();
  for (const auto& p : l.problems()) r.fail("config", p.message, p.where);
  return l;
}

}  // namespace gpualert::cli::check
