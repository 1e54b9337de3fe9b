#pragma once
// When a task last printed something of its own. A shell whose child Slurm killed at
// the time limit prints "Terminated" (or "line 4: 2334 Killed ...") as it dies: that
// line is the kill, not output, and counting it would make a job that hung for an hour
// look as if it printed until the end. The tee's stream index stamps every segment
// (ms since the tee started) and the index file's mtime is its last segment's time,
// so the segment before such trailing notices has a wall-clock time.
#include <chrono>
#include <optional>
#include <string_view>

namespace gpualert::epilog {

// Whether TEXT is only the notices a shell prints for a killed job (and blank lines).
bool only_kill_notices(std::string_view text);

// The time of the task's last output that is not a kill notice, from its log and its
// stream index (both opened below DIRFD without following links); nullopt when the log
// does not end with such notices or the index cannot tell.
std::optional<std::chrono::system_clock::time_point> last_output_before_kill_notices(int dirfd, const char* log,
                                                                                     const char* streams);

}  // namespace gpualert::epilog
