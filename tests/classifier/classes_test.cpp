// Every class the rules cover is produced by a realistic, hand-written log.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

struct Case {
  const char* name;
  const char* expect;
  std::optional<int> exit_code;
  const char* slurm;
  const char* log;
};

const Case kCases[] = {
    {"cuda_oom", "cuda_oom", 1, nullptr,
     "Epoch 0:   3%|▎         | 12/400 [00:09<05:01,  1.29it/s, loss=2.31]\n"
     "Traceback (most recent call last):\n"
     "  File \"/home/u/run_clm.py\", line 611, in <module>\n"
     "    main()\n"
     "  File \"/usr/lib/python3/site-packages/torch/nn/modules/linear.py\", line 114, in forward\n"
     "    return F.linear(input, self.weight, self.bias)\n"
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 79.15 GiB of "
     "which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.11 GiB memory in use.\n"},
    {"nccl", "nccl", 1, nullptr,
     "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, "
     "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600046 milliseconds before timing out.\n"
     "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 8812, last enqueued NCCL work: 8812\n"
     "terminate called after throwing an instance of 'c10::DistBackendError'\n"
     "  what():  [PG 0 Rank 1] Watchdog caught collective operation timeout\n"},
    {"cuda_runtime", "cuda_runtime", 1, nullptr,
     "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] "
     "Assertion `t >= 0 && t < n_classes` failed.\n"
     "Traceback (most recent call last):\n"
     "  File \"train.py\", line 88, in <module>\n"
     "    loss.backward()\n"
     "RuntimeError: CUDA error: device-side assert triggered\n"
     "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"},
    {"ram_oom", "ram_oom", -6, nullptr,
     "Loading 48 shards into host memory\n"
     "terminate called after throwing an instance of 'std::bad_alloc'\n"
     "  what():  std::bad_alloc\n"
     "Aborted (core dumped)\n"},
    {"segfault", "segfault", -11, nullptr,
     "Building extension module fused_adam...\n"
     "Fatal Python error: Segmentation fault\n\n"
     "Thread 0x00007f3b2d7fe700 (most recent call first):\n"
     "  File \"/usr/lib/python3.10/threading.py\", line 320 in wait\n"},
    {"file_not_found", "file_not_found", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"finetune.py\", line 40, in <module>\n"
     "    ds = load_manifest(args.train_file)\n"
     "FileNotFoundError: [Errno 2] No such file or directory: '/scratch/u/data/train.jsonl'\n"},
    {"permission", "permission", 1, nullptr,
     "Saving checkpoint to /shared/models/run7\n"
     "Traceback (most recent call last):\n"
     "  File \"train.py\", line 301, in save\n"
     "    os.makedirs(out_dir, exist_ok=True)\n"
     "PermissionError: [Errno 13] Permission denied: '/shared/models/run7'\n"},
    {"missing_module", "missing_module", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"/work/train.py\", line 5, in <module>\n"
     "    from transformers import AutoModel\n"
     "ModuleNotFoundError: No module named 'transformers'\n"},
    {"missing_module_sharedlib", "missing_module", 1, nullptr,
     "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"},
    {"div_zero", "div_zero", 1, nullptr,
     "Evaluating on 0 examples\n"
     "Traceback (most recent call last):\n"
     "  File \"eval.py\", line 77, in compute_metrics\n"
     "    precision = tp / (tp + fp)\n"
     "ZeroDivisionError: division by zero\n"},
    {"device_mismatch", "device_mismatch", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"model.py\", line 52, in forward\n"
     "    x = self.proj(x) + self.pos\n"
     "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"},
    {"nan_loss", "nan_loss", 0, nullptr,
     "step 100 | loss 4.1203 | lr 1.0e-04\n"
     "step 200 | loss 3.8821 | lr 2.0e-04\n"
     "step 300 | loss nan | lr 3.0e-04\n"
     "step 400 | loss nan | lr 3.0e-04\n"},
    {"oom_killer", "oom_killer", -9, nullptr,
     "Epoch 1 | loss 2.1\n"
     "[88412.221901] Memory cgroup out of memory: Killed process 31337 (python) total-vm:98234112kB, anon-rss:64002212kB\n"},
    {"oom_killer_slurm", "oom_killer", 137, nullptr,
     "slurmstepd: error: Detected 3 oom_kill events in StepId=8812.0. Some of the step tasks have been OOM Killed.\n"
     "srun: error: node17: task 0: Out Of Memory\n"},
    // Other batch systems' memory limits: PBS/Torque, HTCondor.
    {"oom_killer_pbs", "oom_killer", std::nullopt, nullptr,
     "Epoch 1 | loss 2.1\n=>> PBS: job killed: mem 17000000kb exceeded limit 16777216kb\n"},
    {"oom_killer_condor", "oom_killer", std::nullopt, nullptr,
     "Epoch 1 | loss 2.1\nJob was held.\n\tError from slot1@node7: Job has gone over memory limit of 4096 megabytes. "
     "Peak usage: 5000 megabytes.\n"},
    {"timeout_sge", "timeout", std::nullopt, nullptr,
     "Epoch 1 | loss 2.1\nEpoch 2 | loss 1.9\njob 1234 exceeded hard wallclock time - initiate terminate method\n"},
    {"traceback", "traceback", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"train.py\", line 19, in <module>\n"
     "    lr = cfg['optim']['lr']\n"
     "KeyError: 'optim'\n"},
    {"assertion", "assertion", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"attn.py\", line 33, in forward\n"
     "    assert q.shape[-1] == k.shape[-1], 'head dims differ'\n"
     "AssertionError: head dims differ\n"},
    {"runtime_error", "runtime_error", 1, nullptr,
     "Traceback (most recent call last):\n"
     "  File \"train.py\", line 140, in step\n"
     "    out = model(x)\n"
     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 768x10)\n"},
    {"healthy", "healthy", 0, nullptr,
     "{'loss': 2.9012, 'grad_norm': 3.1, 'learning_rate': 5e-05, 'epoch': 0.1}\n"
     "{'loss': 2.5123, 'grad_norm': 2.2, 'learning_rate': 4e-05, 'epoch': 0.3}\n"
     "{'loss': 2.1188, 'grad_norm': 1.9, 'learning_rate': 3e-05, 'epoch': 0.5}\n"
     "{'loss': 1.8410, 'grad_norm': 1.4, 'learning_rate': 2e-05, 'epoch': 0.8}\n"
     "{'loss': 1.6623, 'grad_norm': 1.2, 'learning_rate': 1e-05, 'epoch': 1.0}\n"
     "{'train_runtime': 812.2, 'train_samples_per_second': 41.2, 'train_loss': 2.2, 'epoch': 1.0}\n"},
    {"unknown", "unknown", 1, nullptr, "starting run\nloading data\n"},
    {"signal_kill", "signal_kill", -7, nullptr, "step 10 loss 2.0\nstep 20 loss 1.9\nBus error (core dumped)\n"},
    {"timeout", "timeout", 0, "TIMEOUT",
     "step 9000 loss 1.2\nslurmstepd: error: *** JOB 4412 ON gpu12 CANCELLED AT 2024-06-01T03:00:12 DUE TO TIME LIMIT ***\n"},
    {"cancelled", "cancelled", 0, nullptr,
     "step 10 loss 1.2\nslurmstepd: error: *** JOB 4413 ON gpu12 CANCELLED AT 2024-06-01T03:00:12 ***\n"},
    {"preempted", "preempted", 0, nullptr,
     "step 10 loss 1.2\nslurmstepd: error: *** JOB 4414 ON gpu12 CANCELLED AT 2024-06-01T03:00:12 DUE TO PREEMPTION ***\n"},
    {"node_fail", "node_fail", 1, nullptr,
     "step 10 loss 1.2\n"
     "[rank3]:[E ProcessGroupNCCL.cpp:1316] NCCL error: remote process exited or there was a network error\n"
     "slurmstepd: error: *** JOB 4415 ON gpu12 CANCELLED AT 2024-06-01T03:00:12 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"},
    {"config_error", "config_error", 2, nullptr,
     "usage: train.py [-h] [--lr LR] [--epochs EPOCHS]\ntrain.py: error: unrecognized arguments: --learning_rate 3e-4\n"},
    {"config_error_peft", "config_error", 1, nullptr,
     "Traceback (most recent call last):\n  File \"sft.py\", line 80, in <module>\n    model = get_peft_model(model, cfg)\n"
     "ValueError: Target modules {'query_key_value'} not found in the base model. Please check the target modules and try again.\n"},
    {"asset_error", "asset_error", 1, nullptr,
     "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-66)\n"
     "Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json.\n"
     "OSError: You are trying to access a gated repo.\n"},
    {"asset_error_local_path", "asset_error", 1, nullptr,
     "huggingface_hub.utils._validators.HFValidationError: Repo id must be in the form 'repo_name' or "
     "'namespace/repo_name': '/scratch/models/llama-7b'. Use `repo_type` argument if needed.\n"},
    {"data_error", "data_error", 1, nullptr,
     "Generating train split: 1200 examples [00:01]\n"
     "pyarrow.lib.ArrowInvalid: JSON parse error: Missing a name for object member. in row 1203\n"
     "datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset\n"},
    {"env_mismatch", "env_mismatch", 1, nullptr,
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
     "CUDA kernel errors might be asynchronously reported at some other API call.\n"},
    {"checkpoint_load", "checkpoint_load", 1, nullptr,
     "Traceback (most recent call last):\n  File \"resume.py\", line 31, in <module>\n    model.load_state_dict(sd)\n"
     "RuntimeError: Error(s) in loading state_dict for GPT:\n\tsize mismatch for wte.weight: copying a param with shape "
     "torch.Size([50304, 768]) from checkpoint, the shape in current model is torch.Size([50257, 768]).\n"},
    {"rendezvous", "rendezvous", 1, nullptr,
     "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to "
     "(10.0.0.12, 29500).\n"},
    {"gpu_hardware", "gpu_hardware", 1, nullptr,
     "NVRM: Xid (PCI:0000:3b:00): 79, pid=2231, GPU has fallen off the bus.\n"
     "RuntimeError: CUDA error: unspecified launch failure\n"},
    {"divergence", "divergence", 0, nullptr,
     "step 1 loss 2.30\nstep 2 loss 2.41\nstep 3 loss 2.90\nstep 4 loss 3.70\nstep 5 loss 5.10\nstep 6 loss 7.90\n"},
};

class ClassCase : public ::testing::TestWithParam<Case> {};

TEST_P(ClassCase, ProducesTheClass) {
  const Case& c = GetParam();
  const Verdict v = run(c.log, c.exit_code, c.slurm ? std::optional<std::string>(c.slurm) : std::nullopt);
  EXPECT_EQ(v.cls, c.expect) << to_text_for_test(v);
  EXPECT_FALSE(v.family.empty());
  EXPECT_FALSE(v.cannot_decide.empty());
  EXPECT_FALSE(v.remedy.empty());
  EXPECT_FALSE(v.shows.empty());
}

INSTANTIATE_TEST_SUITE_P(Classes, ClassCase, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace gpualert::classify::test
