// Any bytes as a config file (the site's, or a user's own): every line is applied or
// reported, never a crash, and what is kept stays within its own checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpualert/config/loader.hpp"
#include "gpualert/config/user_choices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpualert::config::Loader loader;
  loader.apply_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.conf");
  const auto& s = loader.settings();
  // Checked values never escape their range, whatever was written.
  if (s.tail_lines < 0 || s.tail_lines > 10000) std::abort();
  if (s.log_max != 0 && s.log_max < (1u << 20)) std::abort();
  if (s.rate_global < 0 || s.rate_recipient < 0) std::abort();
  for (const auto& a : s.to)
    if (a.find_first_of("\r\n") != std::string::npos) std::abort();
  // The same bytes as a user's own file (parsed by the root helper): only the user's keys
  // come out, each within its checks.
  const auto c = gpualert::config::read_user_choices(std::string_view(reinterpret_cast<const char*>(data), size));
  if (c.notify && *c.notify != "none" && *c.notify != "failures" && *c.notify != "bad" && *c.notify != "all")
    std::abort();
  if (c.to)
    for (const auto& a : *c.to)
      if (a.empty() || a.find_first_of("\r\n ,<>\"") != std::string::npos) std::abort();
  return 0;
}
