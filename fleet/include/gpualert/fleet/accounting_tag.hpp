#pragma once
// The verdict as Slurm's accounting keeps it: one token in the job record's
// SystemComment, readable in plain `sacct -o SystemComment`:
//
//   gpualert1:class=gpu_hardware;attr=infra;conf=0.95;node=gpu041;gpus=0000:3b:00+0000:5e:00;bad=0000:3b:00;v=0.1.0
//
// SystemComment, not AdminComment: Princeton's jobstats overwrites AdminComment
// whole with "JS1:<data>" and its readers expect that prefix first. Other writers of
// SystemComment (a burst buffer plugin, slurmctld's notes) keep their text: merge()
// replaces only a previous gpualert token and leaves every other byte in place.
// (sacctmgr of Slurm 22.05 writes any value in lower case: the writer lower-cases the
// token and leaves a field with another writer's capitals alone.)
// The token holds no blank, '|' or control byte (sacct -P's delimiter and line ends
// stay unambiguous) and is at most kMaxTokenBytes long.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::fleet {

inline constexpr std::string_view kTagPrefix = "gpualert1:";
inline constexpr std::size_t kMaxTokenBytes = 400;

struct AccountingVerdict {
  std::string cls;          // taxonomy id
  std::string attribution;  // job | infra | scheduler | none | unknown
  double confidence = 0;
  std::string node;
  std::vector<std::string> gpus;  // PCI addresses of the job's GPUs on that node, when known
  std::vector<std::string> bad;   // those the kernel log's cited GPU records name (a GPU fault's GPU)
  std::string version;            // gpualert's version that wrote it
};

// The token for V; characters outside [A-Za-z0-9._:+-] in a value become '_', the GPU
// list is cut to what fits.
std::string format_tag(const AccountingVerdict& v);
// The first gpualert token in a comment field, nullopt when there is none or it is
// malformed (a field with a class that is no identifier is not ours to trust).
std::optional<AccountingVerdict> parse_tag(std::string_view field);
// EXISTING with any gpualert token replaced by TAG (appended, one blank apart, when
// there was none): what another writer put there stays.
std::string merge_tag(std::string_view existing, std::string_view tag);

}  // namespace gpualert::fleet
