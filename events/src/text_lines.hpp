#pragma once
// Calls F(line) for each line of TEXT, without the newline (and a trailing CR).
#include <string_view>

namespace gpualert::events::detail {

template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = nl + 1;
    f(line);
  }
}

}  // namespace gpualert::events::detail
