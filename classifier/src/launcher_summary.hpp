#pragma once
// torchrun / torchelastic's failure report: "Root Cause (first observed failure):"
// followed by "rank : 3 (local_rank: 3)", "host : node7", "exitcode : -9 (pid: 1234)".
// The launcher's own view of which worker failed first, kept next to the log's errors.
#include <cstdint>
#include <string>
#include <string_view>

namespace gpualert::classify::detail {

class LauncherSummary {
 public:
  void feed(std::string_view body, std::uint64_t lineno);
  bool seen() const { return line_ != 0; }
  bool busy() const { return fields_left_ > 0; }  // inside the block: every line matters
  std::uint64_t line() const { return line_; }
  const std::string& rank() const { return rank_; }
  const std::string& host() const { return host_; }
  const std::string& exitcode() const { return exitcode_; }

 private:
  std::uint64_t line_ = 0;  // the "Root Cause" line
  int fields_left_ = 0;     // lines of the block still to read
  std::string rank_, host_, exitcode_;
};

}  // namespace gpualert::classify::detail
