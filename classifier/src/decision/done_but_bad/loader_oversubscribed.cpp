// The run finished, but PyTorch's DataLoader warned that it starts more worker
// processes than the CPUs the job may use ("This DataLoader will create 8 worker
// processes in total. Our suggested max number of worker in current system is 2"):
// the workers fight over those CPUs and the GPU waits for batches. The warning is
// printed only when the workers outnumber the CPUs, so it is a measurement of the
// job's allocation, not a style hint (unlike Lightning's "does not have many workers").
// Read where the run's end is not known from an exit status (a pasted log): with an
// exit status of 0 it stays a suspicion next to healthy (healthy.cpp), since the
// same warning is common in runs that were fine.
#include <cstdlib>
#include <string>

#include "../wording.hpp"
#include "finished_run.hpp"

namespace gpualert::classify::detail {
namespace {

// The number after WHAT in TEXT, or -1.
long number_after(const std::string& text, const std::string& what) {
  const auto at = text.find(what);
  if (at == std::string::npos) return -1;
  const char* p = text.c_str() + at + what.size();
  while (*p == ' ') ++p;
  char* end = nullptr;
  const long n = std::strtol(p, &end, 10);
  return end == p ? -1 : n;
}

}  // namespace

bool check_loader_oversubscribed(FinishedRun& r) {
  const Marker& w = r.progress.loader_warning;
  if (!w || w.text.find("suggested max number of worker") == std::string::npos) return false;
  // A run that never trained is judged by how it stopped (set-up chatter, a hang), not by this.
  if (!r.progress.progress_lines && !r.loss.count()) return false;
  const long workers = number_after(w.text, "will create");
  const long cpus = number_after(w.text, "in current system is");
  if (workers >= 0 && cpus >= 0 && workers <= cpus) return false;  // not what the warning says: read it as no finding
  r.d.cite_marker(w, "progress.loader_warning",
                  workers >= 0 && cpus >= 0
                      ? "the data loader starts " + std::to_string(workers) + " worker processes where the job's CPUs allow " +
                            std::to_string(cpus)
                      : "the data loader starts more worker processes than the job's CPUs allow");
  const ProgressTracker& P = r.progress;
  if (P.step_time().count() >= 3)
    r.d.v.shows.push_back("the printed step time is about " + fmt(P.step_time().late()) + " s (median of the last values, " +
                          std::to_string(P.step_time().count()) + " printed)");
  r.decide("underutilized", 0.45);
  // The class's own wording assumes a measured data wait and too few workers; here the
  // workers are too many for the CPUs.
  r.d.v.implies.assign({"The data-loading workers outnumber the CPUs the job was given: they compete for them, and "
                        "the GPU waits for batches. A job setting, not a fault."});
  r.d.v.remedy = "Set the DataLoader's num_workers to at most the CPUs the job has (under Slurm, --cpus-per-task), "
                 "or ask for more CPUs; then pin_memory and persistent_workers help the rest.";
  r.d.v.cannot_decide.insert(r.d.v.cannot_decide.begin(),
                             "How long the steps waited for data was not printed: the starved input pipeline is inferred "
                             "from the data loader's warning, not measured.");
  return true;
}

}  // namespace gpualert::classify::detail
