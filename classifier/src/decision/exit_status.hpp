#pragma once
// The exit status and Slurm's state as witnesses: what they say on their own, and
// whether they support a class.
#include <optional>
#include <string>

#include "gpualert/classifier/verdict.hpp"

namespace gpualert::classify::detail {

struct Exit {
  std::optional<int> code;
  int signal = 0;            // from the exit status
  bool shell_style = false;  // 128+N: a shell reporting a child's signal
  bool zero = false;
};

const char* signame(int sig);
// Slurm's state as one word: sacct's "CANCELLED by 1002" is CANCELLED; the slurmstepd
// banner's "CANCELLED DUE TO TIME LIMIT" (what a pasted log carries) is TIMEOUT.
std::string state_word(const std::string& s);
Exit read_exit(const RunStatus& st, const std::string& slurm);
// +1 the exit status supports CLS, 0 says nothing, -1 contradicts it.
int exit_agreement(const std::string& cls, const Exit& e);
// What the exit status shows, as a sentence ("" when there is none).
std::string exit_claim(const Exit& e, const RunStatus& st);

}  // namespace gpualert::classify::detail
