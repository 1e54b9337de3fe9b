#pragma once
// Where gpualert keeps what its configured directories cannot take (an unwritable,
// read-only or full state directory): $TMPDIR/gpualert-<uid> (/tmp without TMPDIR),
// private to this user. The logs and messages put there are said to be there.
#include <filesystem>

namespace gpualert {

// Its path (nothing is made or checked).
std::filesystem::path fallback_dir_path();

// Makes it when missing (mode 0700) and refuses one someone else planted (another
// owner, or open to group/others). Throws std::runtime_error / std::system_error.
std::filesystem::path private_fallback_dir();

}  // namespace gpualert
