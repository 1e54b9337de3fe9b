#pragma once
// A diagnosis: one class from shared/taxonomy.md, who must act, and the three
// parts (what the data shows, what it implies, what it cannot decide).
#include <chrono>
#include <cstdint>
#include <string_view>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpualert::classify {

// One cited log line (1-based line number in the log that was read).
struct Citation {
  std::uint64_t line = 0;
  std::string text;  // the line, made printable and cut to a sane length
  std::string rule;  // id of the rule or parser that cited it
};

// A secondary finding: same class ids, never the primary cause.
struct Finding {
  std::string cls;
  std::string summary;
  double confidence = 0.0;
  std::vector<Citation> evidence;
};

// The training loss over the whole run, thinned to a few hundred evenly spaced values
// (for a picture of how the run went; the decision itself uses its own windows).
struct CurvePoint {
  std::uint64_t line = 0;  // the log line that printed it
  std::uint64_t step = 0;  // the step counter printed with it, 0 when none was
  double value = 0;        // NaN or inf when the printed loss was not finite
};
struct LossCurve {
  std::string key;  // the metric's name as normalised ("loss", "lm_loss")
  std::vector<CurvePoint> points;
  std::uint64_t total = 0;  // values printed in all (points holds a sample of them)
};

struct Verdict {
  std::string cls;          // taxonomy id, e.g. "cuda_oom"
  std::string family;       // e.g. "gpu"
  std::string attribution;  // job | infra | scheduler | none | unknown
  double confidence = 0.0;  // [0,1]
  std::vector<std::string> shows;          // claims, each backed by evidence
  std::vector<std::string> implies;        // the reading
  std::vector<std::string> cannot_decide;  // honest limits
  std::string remedy;                      // what to do next
  std::vector<Citation> evidence;          // the lines behind `shows`
  std::vector<Finding> secondary;
  // What was read, so a report can say how much of the log was seen.
  std::uint64_t lines_read = 0;
  std::uint64_t bytes_read = 0;
  bool partial_scan = false;  // a huge log was sampled (head + tail), not read whole

  // Added fields (the original API above is unchanged).
  // Key facts pulled from the evidence, e.g. {"alloc", "8.00 GiB"}, {"module", "flash_attn"}.
  std::vector<std::pair<std::string, std::string>> facts;
  // Coarser taxonomy ids that also describe this failure, most specific first: an
  // env_mismatch raised as a RuntimeError has broader = {"runtime_error"}. Lets a
  // scorer compare against a coarser label set (the paper's fifteen ids).
  std::vector<std::string> broader;
  // The last lines of the log (at most ~50), for context in a report.
  std::vector<Citation> tail;
  std::uint64_t long_lines = 0;  // lines longer than the per-line cap (only their head was read)
  LossCurve loss_curve;          // empty points: no training loss was printed
};

// One record of the node's kernel / driver log (see gpualert_events), e.g.
// "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
struct KernelEvent {
  std::int64_t time_us = 0;  // microseconds since the Unix epoch (0 = unknown)
  std::string source;        // "journal", "kmsg", "file", ...
  std::string text;
  bool before_start = false;  // known to precede the run (a job-start record saw it), whatever its stamp says
  // Whether the GPU the record names is one of the run's, when the collector knew the GPUs of
  // the node it came from (another node of a multi-node job); unset: compared with RunStatus::gpus.
  std::optional<bool> on_job_gpu{};
};

// What is known about how the process ended, besides its output.
struct RunStatus {
  // >= 0: exit code. < 0: killed by signal -exit_code (the anchor corpus convention).
  std::optional<int> exit_code;
  // Slurm job state when known: COMPLETED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED,
  // CANCELLED, OUT_OF_MEMORY (a suffix like "CANCELLED by 0" is accepted).
  std::optional<std::string> slurm_state;
  // The wrapper could not exec the command at all (missing binary, not executable).
  bool exec_failed = false;
  // The launcher (e.g. Slurm) could not start the command, and why ("Slurm could
  // not open the job's output file /x: Permission denied"); LAUNCH_ERRNO is the
  // cause's errno when known (EACCES, ENOENT...), 0 when not.
  std::string launch_failure;
  int launch_errno = 0;

  // Added inputs (all optional; the fields above are unchanged).
  // Kernel / GPU driver records of the node (NVRM Xid, ECC, OOM killer...), ideally
  // limited to the run's window. EVENTS_COLLECTED says the kernel log was read at all
  // (an empty list then means "nothing happened", not "not looked").
  std::vector<KernelEvent> events;
  bool events_collected = false;
  // The run's GPUs as PCI addresses ("0000:3b:00", events::normalize_bus_id's form).
  // When given, a GPU record counts as the run's evidence only if it names one of them
  // (a record naming no GPU counts for every run on the node); a fault of another GPU
  // is a neighbour's, said as a secondary finding. Empty: not known, every record counts.
  // {"none"}: the run held no GPU, so no GPU record is its.
  std::vector<std::string> gpus;
  // The run's window (microseconds since the epoch): events before START are
  // pre-existing, not caused during the run.
  std::optional<std::int64_t> start_time_us, end_time_us;
  // From the capture timeline: seconds between the last output and the end of the run.
  std::optional<double> seconds_silent_before_end;
  // The job's process ids (main process and known children), to match OOM-killer records.
  std::vector<int> pids;
  // Who ran the job, and fragments of cgroup paths that hold only the job's processes
  // (Slurm: "/job_42"): an OOM record naming a child pid is still matched through them.
  std::optional<int> uid;
  std::vector<std::string> cgroup_marks;
  // Why this run should have resumed from a checkpoint, when the scheduler says so
  // ("requeued 1 time", "depends on job 41 (afterok)"); empty = no such sign.
  std::string resume_expected;
  // Wall time used and allowed, from accounting (seconds).
  std::optional<double> elapsed_s, time_limit_s;
  // Silence (seconds) before an ended run that counts as a hang; the step-time rule
  // (20 late steps) still applies on top. Default 300.
  double hang_after_s = 300.0;
  // When the verdict must be ready: a log too big to read by then is read in part
  // (its start, then as much of its end as time allows) and the verdict says which
  // part was not read. None: no time limit (a huge log is still read in part).
  std::optional<std::chrono::steady_clock::time_point> read_deadline;
};

}  // namespace gpualert::classify
