// Any bytes as the value of --gpualert=VALUE (typed by any user, parsed as root):
// accepted values never carry a byte that could reach a mail header or a command.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "option_value.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string raw(reinterpret_cast<const char*>(data), size);  // stops at a NUL, as C would
  std::string why;
  const auto v = gpualert::spank::parse_option_value(raw.c_str(), why);
  if (!v) {
    if (why.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  for (const auto& a : v->to) {
    if (a.empty() || a[0] == '-') std::abort();
    for (unsigned char c : a)
      if (c < 0x21 || c == 0x7f || c == ',' || c == '<' || c == '>' || c == '"') std::abort();
  }
  return 0;
}
