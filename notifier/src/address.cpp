// Address check: an address with CR/LF or "<>" could inject SMTP commands.
#include "gpualert/notifier/address.hpp"

namespace gpualert::notify {

bool is_valid_address(std::string_view addr) {
  static constexpr std::string_view kForbidden = "<>()[]\\,;:\"";
  if (addr.empty() || addr.size() > 254) return false;
  for (char ch : addr) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 32 || c >= 127 || kForbidden.find(ch) != std::string_view::npos) return false;
  }
  const auto at = addr.find('@');
  if (at == std::string_view::npos) return true;  // local delivery
  return at > 0 && at + 1 < addr.size() && addr.find('@', at + 1) == std::string_view::npos;
}

}  // namespace gpualert::notify
