#pragma once
// Jobs from `sacct --json`: a fleet's week is hundreds of megabytes of JSON, of which
// a dozen fields per job matter here. simdjson's on-demand reader walks each job's
// fields once and skips the rest (steps, associations) without building them:
// nlohmann's own lexer alone reads about 70 MB/s here, too slow for 100,000 jobs.
// Reads the shapes of Slurm 22.05 (data_parser v0.0.38: "state": {"current":
// "FAILED"}, plain numbers) and of later releases ("current": ["FAILED"],
// {"set": .., "number": ..}).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gpualert/fleet/accounting_tag.hpp"

namespace gpualert::fleet {

struct JobRecord {
  std::uint64_t job_id = 0;
  std::uint64_t array_job = 0;           // the array's id for an array task (0: not one)
  std::optional<std::uint64_t> array_task;
  std::string user, partition, nodes, name, state;
  std::string system_comment, admin_comment;
  std::int64_t start = 0, end = 0, elapsed = 0;  // seconds (start/end since the epoch)
  std::uint64_t gpus = 0;                         // allocated gres/gpu
  std::optional<AccountingVerdict> verdict;       // from system_comment
};

// Calls EACH for every job, in the order sacct printed them. Throws std::runtime_error
// saying what is wrong when the text is not such JSON.
void read_sacct_json(std::string_view text, const std::function<void(JobRecord&&)>& each);
// The same for all that can be read from FD (a file, sacct's pipe), read into one buffer.
void read_sacct_json_fd(int fd, const std::function<void(JobRecord&&)>& each);

}  // namespace gpualert::fleet
