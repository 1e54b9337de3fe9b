// A setting that wastes the hardware: a checkpoint nearly every step,
// CUDA_LAUNCH_BLOCKING=1, NCCL over TCP sockets instead of InfiniBand/RoCE.
#include "finished_run.hpp"

namespace gpualert::classify::detail {

bool check_throughput_bound(FinishedRun& r) {
  Decision& d = r.d;
  const ProgressTracker& P = r.progress;
  const bool save_each = P.ckpt_saves >= 5 && r.steps > 0 && P.ckpt_saves * 2 >= r.steps;
  const bool socket = P.net_socket && !P.net_ib;
  if (!save_each && !P.launch_blocking && !socket) return false;
  int n = 0;
  if (save_each) {
    d.cite_marker(P.first_save, "progress.ckpt_save",
                  std::to_string(P.ckpt_saves) + " checkpoint saves for " + std::to_string(r.steps) +
                      " training steps: a checkpoint nearly every step");
    ++n;
  }
  if (P.launch_blocking) {
    d.cite_marker(P.launch_blocking, "progress.launch_blocking",
                  "CUDA_LAUNCH_BLOCKING=1 is set: every CUDA kernel launch waits for the previous one");
    ++n;
  }
  if (socket) {
    d.cite_marker(P.net_socket, "progress.nccl_socket", "NCCL runs its collectives over TCP sockets (NET/Socket), not InfiniBand/RoCE");
    ++n;
  }
  return r.decide("throughput_bound", 0.55 + 0.1 * n);
}

}  // namespace gpualert::classify::detail
