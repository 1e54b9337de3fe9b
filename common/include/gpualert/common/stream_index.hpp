#pragma once
// One line of a log's stream index (`output.streams`, `<task>.streams`), as
// runner::LogWriter writes it: "<tag> <offset> <length> <ms since start>",
// tag 'o' stdout, 'e' stderr, 'g' gpualert's own notes. Read by `gpualert log`,
// the silence measure and the Slurm helper's capture notes.
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpualert {

struct StreamSegment {
  char tag = 0;
  std::uint64_t offset = 0, length = 0;
  long long ms = -1;  // -1: the line had no time (an older index)
};

// nullopt for a line that is not a segment (negative or missing numbers).
std::optional<StreamSegment> parse_stream_segment(std::string_view line);

}  // namespace gpualert
