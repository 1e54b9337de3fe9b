#pragma once
// A run directory removed (or its log replaced) while the job ran: the wrapper still
// holds the log open, so nothing the job wrote is lost. Before the diagnosis reads
// the log by its path, the directory is made again and the log and its stream index
// are copied back from the open descriptors.
#include <string>

#include "gpualert/runner/log_writer.hpp"
#include "gpualert/runner/run_dir.hpp"

namespace gpualert::runner {

// "" when the log is where it was; otherwise what was done (or why it could not be).
std::string restore_removed_log(const RunDir& rd, const LogWriter& log);

}  // namespace gpualert::runner
