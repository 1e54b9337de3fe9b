#pragma once
// Per-line checks for the progress cues that are all digits and punctuation (a
// bracketed step at the start of a line, an "N/M [" progress bar, a date and time).
// Patterns like these have no literal for the block matcher to anchor on and cost it
// more than every rule together; here they cost a few memchr calls, and only on the
// lines the matcher did not already mark as progress.
#include <cstdint>
#include <string_view>

namespace gpualert::classify::detail {

// kCueStep when LINE may be a step line by its shape (at the start of the line or of
// any CR segment: optional blanks, '[', optional blanks, a digit; or anywhere: '/',
// digits, optional blanks, '[' or '('), kCueStamp when it holds something shaped like
// "YYYY-MM-DD HH:MM:SS" ('/' or '-' in the date, ' ' or 'T' before the time). Each is
// a superset of what the progress tracker's own expressions accept, as a cue must be.
std::uint16_t shape_cues(std::string_view line);

}  // namespace gpualert::classify::detail
