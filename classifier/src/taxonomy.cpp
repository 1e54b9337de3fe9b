// The taxonomy table of shared/taxonomy.md (the class-id contract).
#include "gpualert/classifier/taxonomy.hpp"

namespace gpualert::classify {

const std::vector<ClassInfo>& all_classes() {
  static const std::vector<ClassInfo> k = {
      {"missing_module", "startup", "job", "a Python module, shared library or program cannot be found"},
      {"file_not_found", "startup", "job", "a data, config, checkpoint or script path does not exist"},
      {"permission", "startup", "job", "the job may not read or write a path"},
      {"config_error", "startup", "job", "an invalid setting stops setup before training"},
      {"asset_error", "startup", "job", "a model, tokenizer or checkpoint cannot be fetched or loaded"},
      {"data_error", "startup", "job", "a data set cannot be parsed or read"},
      {"env_mismatch", "startup", "job", "the software stack is incompatible with itself or the GPU"},
      {"cuda_oom", "gpu", "job", "one GPU allocation exceeds what the card has"},
      {"cuda_runtime", "gpu", "job", "a CUDA kernel or library call failed"},
      {"device_mismatch", "gpu", "job", "tensors on different devices met in one operation"},
      {"gpu_hardware", "gpu", "infra", "the GPU faulted under the job"},
      {"thermal_throttle", "gpu", "infra", "clocks dropped on a thermal or power limit"},
      {"nccl", "distributed", "unknown", "a collective failed or timed out mid-run"},
      {"rendezvous", "distributed", "infra", "the ranks never formed the process group"},
      {"hang", "distributed", "unknown", "the job held its allocation but stopped making progress"},
      {"throughput_bound", "throughput", "job", "completes, but a nameable bottleneck wastes the hardware"},
      {"underutilized", "throughput", "job", "the input pipeline starves the GPU"},
      {"straggler", "throughput", "infra", "one rank is persistently slower than its peers"},
      {"nan_loss", "correctness", "job", "the loss became NaN or inf"},
      {"divergence", "correctness", "job", "a finite loss that rose, spiked or never moved"},
      {"resume_from_scratch", "correctness", "job", "a resume run silently started from step 0"},
      {"checkpoint_load", "correctness", "job", "loading a checkpoint crashed"},
      {"undertrained", "correctness", "job", "completed after a negligible number of steps"},
      {"segfault", "signal", "job", "a native crash (SIGSEGV)"},
      {"oom_killer", "signal", "job", "the kernel or cgroup killed the job for host memory"},
      {"ram_oom", "signal", "job", "a host memory allocation failed inside the process"},
      {"signal_kill", "signal", "unknown", "another fatal signal with no traceback"},
      {"div_zero", "code", "job", "division by zero"},
      {"assertion", "code", "job", "an assertion failed"},
      {"runtime_error", "code", "job", "an uncategorised RuntimeError"},
      {"traceback", "code", "job", "any other uncaught Python exception"},
      {"node_fail", "scheduler", "infra", "a node of the allocation failed or was drained"},
      {"preempted", "scheduler", "scheduler", "the scheduler preempted or requeued the job"},
      {"timeout", "scheduler", "scheduler", "reaped at the wall-clock limit"},
      {"cancelled", "scheduler", "scheduler", "cancelled by a user or an operator"},
      {"healthy", "healthy", "none", "completed, did real work, and the loss went down"},
      {"healthy_slow", "healthy", "none", "healthy but slow"},
      {"unknown", "unknown", "unknown", "failed, and no evidence decides why"},
  };
  return k;
}

const ClassInfo* find_class(std::string_view id) {
  for (const auto& c : all_classes())
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace gpualert::classify
