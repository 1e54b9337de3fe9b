#pragma once
// Reading a raw waitpid() status the same way everywhere.
#include <string>

namespace gpualert {

// Exit code, or -S when killed by signal S (the anchor corpus convention).
int signed_exit_code(int wait_status);
// "exit 3", "SIGSEGV (signal 11)".
std::string describe_status(int wait_status);
// "SIGKILL" for 9; "signal 42" when there is no name.
std::string signal_name(int signo);

}  // namespace gpualert
