#pragma once
// gpualert-core: the program that holds everything heavy (the classifier, the kernel
// event readers, mail). The `gpualert` launcher runs it for every subcommand but `run`,
// and for the diagnosis after a run, so that a job starts without waiting for any of it.
#include <string>

namespace gpualert::cli {

// Beside this program (the build tree), else <prefix>/libexec/gpualert/, else the
// configured libexec directory; $GPUALERT_CORE overrides (an absolute path).
std::string core_program();

// Replaces this process with gpualert-core and the same arguments.
[[noreturn]] void exec_core(int argc, char** argv);

}  // namespace gpualert::cli
