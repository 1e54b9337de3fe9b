#pragma once
// The wrapper's exit status is a pure function of the child's.

namespace gpualert::runner {

// Exit code N -> exit(N). Killed by signal S -> die by S (no core file of our own).
[[noreturn]] void exit_like(int wait_status);

}  // namespace gpualert::runner
