#pragma once
// What the launcher hands to the diagnosis program (gpualert-core post-run): the run's
// facts and where its settings came from, in a byte-exact form (command arguments
// need not be UTF-8, so not JSON).
#include <optional>
#include <string>

#include "post_run.hpp"

namespace gpualert::cli {

std::string encode_post_run(const PostRunInput& in);
// Throws std::runtime_error on a malformed record. SETTINGS is left empty: the caller
// loads them from config_file and flags.
PostRunInput decode_post_run(const std::string& bytes);

// The record as handed over in descriptor FD (read from its start to its end, then closed).
std::string read_handed_over(int fd);

}  // namespace gpualert::cli
