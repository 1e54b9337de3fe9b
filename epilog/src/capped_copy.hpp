#pragma once
// Copies a user-written task log into the job's combined log without trusting
// its size: holes (a `truncate -s 3G`) are skipped, not copied as zeros, and
// only the first HEAD and last TAIL bytes of data are kept, with a line saying
// what was left out. A hostile log thus costs at most HEAD + TAIL bytes.
#include <cstdint>

namespace gpualert::epilog {

struct CopyResult {
  std::uint64_t written = 0;   // bytes written to OUT, notes included
  std::uint64_t skipped = 0;   // data bytes between the head and the tail, not copied
  std::uint64_t holes = 0;     // bytes of holes in a sparse file, not copied
  bool ok = true;              // false when IN could not be read or OUT not written
};

CopyResult copy_capped(int in, int out, std::uint64_t head, std::uint64_t tail);

}  // namespace gpualert::epilog
