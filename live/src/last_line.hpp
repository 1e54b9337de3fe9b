#pragma once
// The last non-empty line of output read so far; a partial line is held until it ends,
// and a progress bar's line counts from its last carriage return.
#include <algorithm>
#include <string>
#include <string_view>

#include "gpualert/common/text.hpp"

namespace gpualert::live {

struct LastLine {
  std::string partial, line;
  void feed(std::string_view b) {
    std::size_t start = 0;
    for (std::size_t nl; (nl = b.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      partial.append(b.substr(start, nl - start));
      const auto cr = partial.rfind('\r');
      const std::string seg = cr == std::string::npos ? partial : partial.substr(cr + 1);
      if (seg.find_first_not_of(" \t\r") != std::string::npos) line = one_line(seg, 200);
      partial.clear();
    }
    if (partial.size() < 4096) partial.append(b.substr(start, std::min<std::size_t>(b.size() - start, 4096)));
  }
};

}  // namespace gpualert::live
