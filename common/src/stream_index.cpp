#include "gpualert/common/stream_index.hpp"

#include <sstream>
#include <string>

namespace gpualert {

std::optional<StreamSegment> parse_stream_segment(std::string_view line) {
  std::istringstream in{std::string(line)};
  char tag = 0;
  long long off = -1, len = -1, ms = -1;
  if (!(in >> tag >> off >> len) || off < 0 || len < 0) return std::nullopt;
  if (!(in >> ms)) ms = -1;
  return StreamSegment{tag, static_cast<std::uint64_t>(off), static_cast<std::uint64_t>(len), ms};
}

}  // namespace gpualert
