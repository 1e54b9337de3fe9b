#!/usr/bin/python3
"""SYNTHETIC corpus logs for failures only a GPU node or a Slurm cluster produces.

Written from documented message formats (PyTorch/c10d, NCCL, NVRM Xid,
nvidia-smi, Slurm slurmstepd/srun, Hugging Face hub), with varied wording
context, rank prefixes, timestamps and noise. Deterministic: every sample
is built from random.Random(<its id>), so regeneration is byte-identical.

    /usr/bin/python3 corpus/generate/synthetic.py
"""
import math
import os
import random
import sys
from datetime import datetime, timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402

GPUS = [("NVIDIA-H100-80GB-HBM3", "550.54.15", 79.19), ("NVIDIA-A100-SXM4-80GB", "535.129.03", 79.15),
        ("NVIDIA-A100-SXM4-40GB", "525.85.12", 39.39), ("Tesla-V100-SXM2-32GB", "470.199.02", 31.74),
        ("NVIDIA-L40S", "550.90.07", 44.52), ("NVIDIA-H200", "560.35.03", 139.8)]
NODES = ["gpu%03d" % i for i in range(1, 120)] + ["node-%02d" % i for i in range(1, 40)] + ["dgx-a%02d" % i for i in range(1, 20)]

OUT = []


# ----------------------------------------------------------------- building blocks
class Ctx:
    def __init__(self, sid):
        self.r = random.Random(sid)
        r = self.r
        self.gpu, self.driver, self.mem = r.choice(GPUS)
        self.node = r.choice(NODES)
        self.jobid = r.randint(100000, 9999999)
        self.t = datetime(2026, 1, 1) + timedelta(days=r.randint(0, 120), seconds=r.randint(0, 86400))
        self.world = r.choice([2, 4, 8, 8, 16, 32, 64])
        self.pid = r.randint(1000, 400000)
        self.bus = r.choice(["0000:3b:00", "0000:5e:00", "0000:86:00", "0000:af:00", "0000:18:00", "0000:d8:00", "0000:1b:00"])
        self.prefix_style = r.choice(["none", "rank", "torchrun", "srun", "rankcolon"])

    def ts(self, fmt="%Y-%m-%d %H:%M:%S"):
        return self.t.strftime(fmt)

    def adv(self, s):
        self.t += timedelta(seconds=s)

    def pfx(self, rank):
        s = self.prefix_style
        if s == "rank":
            return f"[rank{rank}]: "
        if s == "torchrun":
            return f"[default{rank % 8}]:"
        if s == "srun":
            return f"{rank}: "
        if s == "rankcolon":
            return f"[RANK {rank}] "
        return ""


def loss_curve(r, n, start=None, end=None):
    start = start or r.uniform(2.2, 11.5)
    end = end or start * r.uniform(0.15, 0.6)
    out = []
    for i in range(n):
        f = i / max(1, n - 1)
        v = end + (start - end) * math.exp(-3.5 * f) + r.gauss(0, 0.03 * start)
        out.append(max(0.01, v))
    return out


def progress(c, fmt, steps, total=None, log_every=10, rank=0, step0=0, step_time=None, losses=None, lr0=None):
    """Training progress lines in a framework's format (returns list of lines)."""
    r = c.r
    total = total or max(steps * 3, 1000)
    losses = losses or loss_curve(r, steps)
    st = step_time or r.uniform(0.2, 2.5)
    lines = []
    p = c.pfx(rank)
    lr0 = lr0 or r.choice([1e-4, 2e-5, 3e-4, 5e-5, 6e-4])
    for k in range(steps):
        step = step0 + (k + 1) * log_every
        loss = losses[k]
        c.adv(st * log_every)
        lr = lr0 * min(1.0, step / 200)
        if fmt == "hf":
            lines.append(p + str({"loss": round(loss, 4), "grad_norm": round(r.uniform(0.3, 3.0), 4), "learning_rate": lr,
                                  "epoch": round(step / (total / 3), 2)}))
        elif fmt == "megatron":
            lines.append(p + f" [{c.ts()}] iteration {step:8d}/{total:8d} | consumed samples: {step * 512:12d} | "
                         f"elapsed time per iteration (ms): {st * 1000:.1f} | learning rate: {lr:.3E} | global batch size: {512:5d} | "
                         f"lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {r.uniform(0.2, 2):.3f} | "
                         f"number of skipped iterations: {0:3d} | number of nan iterations: {0:3d} |")
        elif fmt == "lightning":
            lines.append(p + f"Epoch {step // 500}: {int(100 * (step % 500) / 500):3d}%|#####     | {step % 500}/500 "
                         f"[{int(st * step) // 60:02d}:{int(st * step) % 60:02d}<00:00, {1 / st:.2f}it/s, loss={loss:.3g}, v_num=0]")
        elif fmt == "ds":
            lines.append(p + f"[{c.ts()},{r.randint(0, 999):03d}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
                         f"lr=[{lr:.6e}], mom=[(0.9, 0.95)]")
            lines.append(p + f"steps: {step} loss: {loss:.4f} iter time (s): {st:.3f} samples/sec: {256 / st:.3f}")
        else:
            lines.append(p + f"{c.ts()} | step {step:6d}/{total} | loss {loss:.4f} | lr {lr:.2e} | {st:.2f} s/it")
    return lines


def noise(c, n=None):
    r = c.r
    pool = [
        "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:560: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
        "  warnings.warn(_create_warning_msg(",
        "You are using a model of type llama to instantiate a model of type . This is not supported for all configurations of models and can yield errors.",
        "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
        "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.",
        "wandb: Tracking run with wandb version 0.16.6",
        "wandb: W&B syncing is set to `offline` in this directory.",
        f"Loading checkpoint shards: 100%|##########| {r.randint(2, 8)}/{r.randint(2, 8)} [00:{r.randint(10, 59)}<00:00,  {r.uniform(3, 9):.2f}s/it]",
        "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).",
        "/opt/conda/lib/python3.10/site-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.",
        "Map (num_proc=16): 100%|##########| 52002/52002 [00:04<00:00, 11503.22 examples/s]",
        "Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.",
        "NCCL version 2.18.1+cuda12.1",
        "[2026-01-01 00:00:00,000] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
        "***** Running training *****",
        "  Num examples = 52,002",
        "  Gradient Accumulation steps = 8",
    ]
    return r.sample(pool, n if n is not None else r.randint(1, 5))


def nccl_info(c, ranks=2, net=None):
    r = c.r
    net = net or r.choice(["IB", "Socket"])
    host = c.node
    lines = []
    for rank in range(ranks):
        pid = c.pid + rank
        p = f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO "
        lines.append(p + "Bootstrap : Using ib0:10.%d.%d.%d<0>" % (r.randint(0, 9), r.randint(0, 255), r.randint(1, 254)))
        if net == "IB":
            lines.append(p + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB ib0:10.1.2.3<0>")
            lines.append(p + "Using network IB")
        else:
            lines.append(p + "NET/Socket : Using [0]eth0:10.0.%d.%d<0>" % (r.randint(0, 9), r.randint(1, 254)))
            lines.append(p + "Using network Socket")
        lines.append(p + f"comm 0x{r.getrandbits(40):x} rank {rank} nranks {c.world} cudaDev {rank % 8} busId {r.choice(['1b000', '3b000', '5e000', 'af000'])} - Init COMPLETE")
    return lines


def slurm_cancel(c, reason=None, step=False):
    due = f" DUE TO {reason}" if reason else ""
    what = f"STEP {c.jobid}.{c.r.choice([0, 0, 1])}" if step else f"JOB {c.jobid}"
    return f"slurmstepd: error: *** {what} ON {c.node} CANCELLED AT {c.t.strftime('%Y-%m-%dT%H:%M:%S')}{due} ***"


def torchrun_summary(c, failed_rank, exitcode=1, signal=None, script="train.py"):
    r = c.r
    pid = c.pid + failed_rank
    ts = c.ts()
    lines = []
    if signal:
        num, name = signal
        lines.append(f"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid + 1} closing signal SIGTERM")
        lines.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -{num}) local_rank: {failed_rank % 8} (pid: {pid}) of binary: /opt/conda/bin/python")
    else:
        lines.append(f"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {exitcode}) local_rank: {failed_rank % 8} (pid: {pid}) of binary: /opt/conda/bin/python")
    lines += ["Traceback (most recent call last):",
              '  File "/opt/conda/bin/torchrun", line 33, in <module>',
              "    sys.exit(load_entry_point('torch==2.1.2', 'console_scripts', 'torchrun')())",
              '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 346, in wrapper',
              "    return f(*args, **kwargs)",
              '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 259, in launch_agent',
              "    raise ChildFailedError(",
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
              "============================================================",
              f"{script} FAILED",
              "------------------------------------------------------------",
              "Failures:",
              "  <NO_OTHER_FAILURES>",
              "------------------------------------------------------------",
              "Root Cause (first observed failure):",
              "[0]:",
              f"  time      : {ts}",
              f"  host      : {c.node}.cluster.local",
              f"  rank      : {failed_rank} (local_rank: {failed_rank % 8})",
              f"  exitcode  : {-signal[0] if signal else exitcode} (pid: {pid})",
              "  error_file: <N/A>"]
    if signal:
        lines.append(f"  traceback : Signal {signal[0]} ({signal[1]}) received by PID {pid}")
    else:
        lines.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    lines.append("============================================================")
    return lines


def py_tb(frames, exc):
    lines = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        lines.append(f'  File "{f}", line {ln}, in {fn}')
        lines.append(f"    {code}")
    lines += exc.split("\n")
    return lines


TRAIN_FRAMES = [
    ("/workspace/train.py", 212, "<module>", "main()"),
    ("/workspace/train.py", 187, "main", "trainer.train()"),
    ("/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", 1539, "train", "return inner_training_loop("),
    ("/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", 1869, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
]


def emit(sid, mode, c, lines, rc, gen, notes=None):
    text = "\n".join(lines) + "\n"
    path = os.path.join(capture.LOGS, f"{sid}.log")
    os.makedirs(capture.LOGS, exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    OUT.append(capture.label(sid, mode, "synthetic", rc, f"synthetic.py:{gen}", notes, gpu=c.gpu, driver=c.driver))


def ranked(c, lines, rank):
    return [c.pfx(rank) + l for l in lines]


# ----------------------------------------------------------------- classes
def gen_cuda_oom(sid, i):
    c = Ctx(sid); r = c.r
    fmt = r.choice(["hf", "megatron", "plain", "ds", "lightning"])
    lines = noise(c) + progress(c, fmt, r.choice([0, 0, 3, 12, 40]))
    want = r.choice([0.02, 0.5, 1.95, 2.0, 4.0, 12.5, 20.0, 91.6, 128.0, 0.25])
    unit = "MiB" if want < 1 else "GiB"
    amount = f"{want * 1024:.2f} MiB" if want < 1 else f"{want:.2f} GiB"
    free = r.uniform(0.01, 1.5)
    used = c.mem - free
    rank = r.randrange(c.world)
    style = i % 4
    if style == 0:
        msg = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {amount}. GPU {rank % 8} has a total capacity of {c.mem:.2f} GiB "
               f"of which {free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has {used:.2f} GiB memory in use. Of the allocated memory "
               f"{used - 1.2:.2f} GiB is allocated by PyTorch, and {r.uniform(0.1, 1.1):.2f} GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
               "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
               "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    elif style == 1:
        msg = (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {amount} (GPU {rank % 8}; {c.mem:.2f} GiB total capacity; "
               f"{used - 0.4:.2f} GiB already allocated; {free * 1024:.2f} MiB free; {used - 0.1:.2f} GiB reserved in total by PyTorch) If reserved memory is >> "
               "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    elif style == 2:
        msg = (f"RuntimeError: CUDA out of memory. Tried to allocate {amount} (GPU {rank % 8}; {c.mem:.2f} GiB total capacity; {used - 0.4:.2f} GiB already "
               f"allocated; {free * 1024:.2f} MiB free; {used - 0.1:.2f} GiB reserved in total by PyTorch)")
    else:
        msg = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {amount}. GPU {rank % 8} has a total capacty of {c.mem:.2f} GiB of which "
               f"{free * 1024:.2f} MiB is free. Process {c.pid} has {used:.2f} GiB memory in use. Of the allocated memory {used - 2:.2f} GiB is allocated by PyTorch, "
               f"and {r.uniform(0.1, 1.9):.2f} GiB is reserved by PyTorch but unallocated.")
    frames = TRAIN_FRAMES + [("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                             ("/opt/conda/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", 389, "forward",
                              "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)")]
    tb = py_tb(frames, msg)
    if r.random() < 0.5 and c.world > 1:
        lines += ranked(c, tb, rank) + torchrun_summary(c, rank)
        rc = 1
    else:
        lines += tb
        rc = 1
    emit(sid, "cuda_oom", c, lines, rc, "cuda_oom")


def gen_cuda_runtime(sid, i):
    c = Ctx(sid); r = c.r
    fmt = r.choice(["hf", "megatron", "plain", "lightning"])
    lines = noise(c) + progress(c, fmt, r.choice([0, 2, 10, 35]))
    tail = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
    k = i % 8
    pre = []
    if k == 0:
        for t in r.sample(range(32), 4):
            pre.append(f"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.")
        msg = "RuntimeError: CUDA error: device-side assert triggered\n" + tail
    elif k == 1:
        for t in r.sample(range(128), 3):
            pre.append(f"../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [{r.randint(0, 400)},0,0], thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
        msg = "RuntimeError: CUDA error: device-side assert triggered\n" + tail
    elif k == 2:
        msg = "RuntimeError: CUDA error: an illegal memory access was encountered\n" + tail
    elif k == 3:
        msg = ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, "
               "b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`")
    elif k == 4:
        msg = "RuntimeError: CUDA error: misaligned address\n" + tail
    elif k == 5:
        msg = ("RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemmStridedBatched( handle, opa, opb, m, n, k, &alpha, a, lda, "
               "stridea, b, ldb, strideb, &beta, c, ldc, stridec, num_batches)`")
    elif k == 6:
        lines += [f"terminate called after throwing an instance of 'c10::Error'",
                  "  what():  CUDA error: an illegal memory access was encountered", tail.rstrip(),
                  "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):",
                  f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f{r.getrandbits(36):09x} in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10.so)",
                  f"frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f{r.getrandbits(36):09x} in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10_cuda.so)"]
        lines += torchrun_summary(c, r.randrange(c.world), signal=(6, "SIGABRT")) if c.world > 1 else []
        emit(sid, "cuda_runtime", c, lines, 1 if c.world > 1 else -6, "cuda_runtime", "illegal memory access raised in a CUDA stream callback: abort")
        return
    else:
        msg = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"
    lines += pre + py_tb(TRAIN_FRAMES + [("/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py", 3059, "cross_entropy",
                                          "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")], msg.rstrip())
    emit(sid, "cuda_runtime", c, lines, 1, "cuda_runtime")


XIDS = [
    (79, "GPU has fallen off the bus."),
    (48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0."),
    (63, "Row Remapper: New row marked for remapping, reset gpu to activate."),
    (64, "Row Remapper: Failed to remap row due to a failure in the row remapping process."),
    (74, "NVLink: fatal error detected on link 5(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"),
    (94, "Contained: SM (0x1). RST: No, D-RST: No"),
    (95, "Uncontained: FBHUB. RST: Yes, D-RST: No"),
    (119, "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."),
    (92, "High single-bit ECC error rate"),
    (31, "Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f0d_3c000000. Fault is of type FAULT_PDE ACCESS_TYPE_READ"),
]


def gen_gpu_hardware(sid, i):
    c = Ctx(sid); r = c.r
    xid, text = XIDS[i % len(XIDS)]
    fmt = r.choice(["hf", "megatron", "plain", "ds"])
    lines = noise(c) + progress(c, fmt, r.randint(5, 40))
    up = r.uniform(10000, 900000)
    kern = [f"[{up:.6f}] NVRM: GPU at PCI:{c.bus}: GPU-{r.getrandbits(32):08x}-{r.getrandbits(16):04x}-{r.getrandbits(16):04x}-{r.getrandbits(16):04x}-{r.getrandbits(48):012x}",
            f"[{up:.6f}] NVRM: GPU Board Serial Number: 1{r.randint(10**11, 10**12 - 1)}",
            f"[{up + 0.000004:.6f}] NVRM: Xid (PCI:{c.bus}): {xid}, pid={c.pid}, name=python, {text}"]
    if xid == 79:
        kern.append(f"[{up + 0.01:.6f}] NVRM: GPU {c.bus}.0: GPU has fallen off the bus.")
        app = "RuntimeError: CUDA error: unspecified launch failure"
    elif xid in (48, 95, 64):
        app = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
    elif xid == 74:
        app = "RuntimeError: NCCL communicator was aborted on rank 3. Original reason for failure was: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"
    elif xid == 119:
        app = "RuntimeError: CUDA error: unknown error"
    else:
        app = None
    style = r.choice(["kern_first", "app_then_kern", "smi"])
    if app:
        tb = py_tb(TRAIN_FRAMES, app + "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.")
        if style == "kern_first":
            lines += kern + tb
        else:
            lines += tb + ["--- dmesg (collected by the job epilog) ---"] + kern
        if style == "smi":
            lines += [f"Unable to determine the device handle for GPU{c.bus.upper()}.0: Unknown Error"] if xid == 79 else [
                "$ nvidia-smi -q -d ROW_REMAPPER,ECC | grep -A3 -E 'Remapping Failure|Volatile'",
                "        Remapping Failure Occurred        : Yes" if xid == 64 else "        Remapping Failure Occurred        : No",
                "            DRAM Uncorrectable            : %d" % r.randint(1, 12)]
        rc = 1
    else:
        # contained/latent faults: the job keeps going or is taken down by the driver
        lines += kern + progress(c, fmt, r.randint(2, 10), step0=400)
        lines += ["RuntimeError: CUDA error: an illegal instruction was encountered" if xid == 94 else "RuntimeError: CUDA error: unspecified launch failure"]
        rc = 1
    emit(sid, "gpu_hardware", c, lines, rc, f"gpu_hardware:xid{xid}")


def gen_thermal(sid, i):
    c = Ctx(sid); r = c.r
    steps = r.randint(30, 60)
    lines = noise(c, 2)
    base = r.uniform(0.4, 1.2)
    onset = r.randint(8, steps - 10)
    losses = loss_curve(r, steps)
    temp0 = r.randint(62, 72)
    style = i % 3
    if style == 0:
        lines.append("timestamp, index, temperature.gpu, clocks.sm [MHz], power.draw [W], clocks_throttle_reasons.hw_thermal_slowdown, clocks_throttle_reasons.sw_thermal_slowdown")
    for k in range(steps):
        hot = k >= onset
        st = base * (r.uniform(1.8, 2.6) if hot else r.uniform(0.97, 1.05))
        lines += progress(c, "plain", 1, total=steps * 10, step0=k * 10, step_time=st, losses=[losses[k]], lr0=3e-4)
        if k % 4 == 0:
            temp = r.randint(88, 95) if hot else temp0 + r.randint(0, 4)
            sm = r.choice([1005, 1095, 840, 1200]) if hot else r.choice([1980, 1755, 1410])
            if style == 0:
                lines.append(f"{c.t.strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]}, {r.randrange(8)}, {temp}, {sm} MHz, {r.randint(250, 700):.2f} W, "
                             f"{'Active' if hot else 'Not Active'}, {'Active' if hot and r.random() < 0.5 else 'Not Active'}")
            elif style == 1 and hot:
                lines += ["    Clocks Event Reasons", "        Idle                              : Not Active",
                          "        Applications Clocks Setting       : Not Active", "        SW Power Cap                      : Not Active",
                          "        HW Slowdown                       : Active", "            HW Thermal Slowdown           : Active",
                          "            HW Power Brake Slowdown       : Not Active", "        Sync Boost                        : Not Active",
                          "        SW Thermal Slowdown               : Active", f"    GPU Current Temp                      : {temp} C",
                          f"    SM                                    : {sm} MHz"]
            elif style == 2 and hot:
                lines.append(f"[{c.ts()}] dcgm: gpu {r.randrange(8)} temp={temp}C sm_clock={sm}MHz clocks_event_reasons=0x{r.choice([0x48, 0x68, 0x08, 0x40]):x} (HW_SLOWDOWN|HW_THERMAL_SLOWDOWN)")
    lines.append(f"training finished: {steps * 10} steps, final loss {losses[-1]:.4f}")
    emit(sid, "thermal_throttle", c, lines, 0, "thermal_throttle", "step time roughly doubles once thermal slowdown is active; loss keeps falling")


def gen_nccl(sid, i):
    c = Ctx(sid); r = c.r
    world = max(4, c.world)
    fmt = r.choice(["hf", "megatron", "plain", "ds"])
    lines = nccl_info(c, ranks=r.randint(1, 3)) + noise(c, 2) + progress(c, fmt, r.randint(10, 60))
    seq = r.randint(1000, 900000)
    op = r.choice(["ALLREDUCE", "ALLGATHER", "_ALLGATHER_BASE", "REDUCE_SCATTER", "BROADCAST", "_REDUCE_SCATTER_BASE"])
    tmo = r.choice([600000, 1800000, 1200000])
    k = i % 6
    bad = r.randrange(world)
    if k in (0, 1):
        # watchdog timeout on every surviving rank, one rank stuck
        c.adv(tmo / 1000)
        for rank in r.sample(range(world), min(world, 4)):
            if rank == bad:
                continue
            pf = f"[rank{rank}]:" if k == 0 else ""
            lines.append(f"{pf}[E ProcessGroupNCCL.cpp:{r.choice([475, 563, 1182])}] [Rank {rank}] Watchdog caught collective operation timeout: "
                         f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={r.randint(1, 10**8)}, NumelOut={r.randint(1, 10**8)}, Timeout(ms)={tmo}) ran for {tmo + r.randint(10, 900)} milliseconds before timing out.")
        lines += ["[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
                  "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
                  "terminate called after throwing an instance of 'std::runtime_error'",
                  f"  what():  [Rank {bad ^ 1}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={tmo}) ran for {tmo + 37} milliseconds before timing out."]
        lines += torchrun_summary(c, bad ^ 1, signal=(6, "SIGABRT"))
        rc = 1
    elif k == 2:
        msg = (f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error "
               f"(run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
               f"Last error:\nsocketProgress: Connection closed by remote peer {r.choice(NODES)}.cluster.local<{r.randint(30000, 60000)}>")
        lines += ranked(c, py_tb(TRAIN_FRAMES + [("/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", 2050, "all_reduce", "work = group.allreduce([tensor], opts)")], msg), bad)
        lines += torchrun_summary(c, bad)
        rc = 1
    elif k == 3:
        peer = f"10.{r.randint(0, 9)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
        lines += [f"{c.node}:{c.pid}:{c.pid + 7} [{bad % 8}] NCCL INFO NET/IB : Got completion from peer {peer}<{r.randint(30000, 60000)}> with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:10.1.2.3 remoteGid ::ffff:{peer}",
                  f"{c.node}:{c.pid}:{c.pid + 7} [{bad % 8}] NCCL INFO transport/net.cc:1164 -> 6",
                  f"{c.node}:{c.pid}:{c.pid + 7} [{bad % 8}] NCCL INFO proxy.cc:893 -> 6 [Progress Thread]"]
        msg = (f"RuntimeError: NCCL error: remote process exited or there was a network error, NCCL version 2.18.1\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
               f"Last error:\nNET/IB : Got completion from peer {peer}<52113> with error 12, opcode 0, len 0, vendor err 129 (Recv)")
        lines += py_tb(TRAIN_FRAMES, msg) + torchrun_summary(c, bad)
        rc = 1
    elif k == 4:
        # one rank's real cause first (a dataloader crash), then the collective failures on the others
        lines += ranked(c, py_tb([("/workspace/data.py", 88, "__getitem__", "sample = self.records[idx]")],
                                 f"IndexError: Caught IndexError in DataLoader worker process 3.\nOriginal Traceback (most recent call last):\nIndexError: list index out of range"), bad)
        c.adv(tmo / 1000)
        for rank in range(min(world, 4)):
            if rank != bad:
                lines.append(f"[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, Timeout(ms)={tmo}) ran for {tmo + 51} milliseconds before timing out.")
        lines += torchrun_summary(c, bad)
        rc = 1
        emit(sid, "nccl", c, lines, rc, "nccl:root_cause_first", "a rank's IndexError precedes the collective timeouts; the job's own bug is the trigger")
        return
    else:
        lines += [f"RuntimeError: NCCL communicator was aborted on rank {bad}. Original reason for failure was: [Rank {bad}] Watchdog caught collective operation timeout: "
                  f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={tmo}) ran for {tmo + 12} milliseconds before timing out."]
        lines += torchrun_summary(c, bad)
        rc = 1
    emit(sid, "nccl", c, lines, rc, "nccl")


def gen_scheduler(sid, i, mode):
    c = Ctx(sid); r = c.r
    fmt = r.choice(["hf", "megatron", "plain", "ds", "lightning"])
    lines = noise(c) + progress(c, fmt, r.randint(15, 80), log_every=r.choice([10, 50, 100]))
    c.adv(r.uniform(5, 120))
    step_line = r.random() < 0.5
    if mode == "timeout":
        lines.append(slurm_cancel(c, "TIME LIMIT"))
        if step_line:
            lines.insert(-1, slurm_cancel(c, "TIME LIMIT", step=True))
        rc = -15 if r.random() < 0.5 else 143
    elif mode == "cancelled":
        if r.random() < 0.4:
            lines.append(f"srun: Job step aborted: Waiting up to {r.choice([32, 62, 122])} seconds for job step to finish.")
        lines.append(slurm_cancel(c, None, step=step_line))
        if r.random() < 0.5:
            lines.append(f"srun: error: {c.node}: task {r.randrange(8)}: Terminated")
            lines.append("srun: forcing job termination")
        rc = -15 if r.random() < 0.6 else 143
    elif mode == "preempted":
        k = i % 3
        if k == 2:
            lines.append(f"slurmstepd: error: *** JOB {c.jobid} ON {c.node} CANCELLED AT {c.t.strftime('%Y-%m-%dT%H:%M:%S')} DUE TO JOB REQUEUE ***")
        else:
            lines.append(slurm_cancel(c, "PREEMPTION", step=step_line))
        if r.random() < 0.5:
            lines.append(f"srun: error: {c.node}: tasks 0-{r.randint(1, 7)}: Terminated")
        if k == 1:
            lines += [f"--- sacct -j {c.jobid} --format=JobID,State,ExitCode,Elapsed,NodeList ---",
                      f"{c.jobid:<12} PREEMPTED      0:15   0{r.randint(1, 9)}:{r.randint(10, 59)}:{r.randint(10, 59)} {c.node}",
                      f"{c.jobid}.batch CANCELLED      0:15   0{r.randint(1, 9)}:{r.randint(10, 59)}:{r.randint(10, 59)} {c.node}"]
        rc = -15
    else:  # node_fail
        other = r.choice(NODES)
        k = i % 3
        if k == 0:
            lines.append(f"srun: error: Node failure on {other}")
            lines.append(slurm_cancel(c, "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"))
        elif k == 1:
            lines.append(f"slurmstepd: error: *** JOB {c.jobid} ON {c.node} CANCELLED AT {c.t.strftime('%Y-%m-%dT%H:%M:%S')} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***")
            lines.append(f"srun: error: {other}: task {r.randint(8, 15)}: Killed")
        else:
            lines += [f"srun: error: Node failure on {other}", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                      f"--- sacct -j {c.jobid} -X ---", f"{c.jobid:<12} NODE_FAIL      0:0   {r.randint(1, 40):02d}:{r.randint(10, 59)}:{r.randint(10, 59)} {c.node},{other}"]
        rc = -9 if r.random() < 0.5 else 1
    emit(sid, mode, c, lines, rc, mode)


def gen_hang_slurm(sid, i):
    c = Ctx(sid); r = c.r
    fmt = r.choice(["hf", "megatron", "plain", "ds"])
    lines = noise(c) + progress(c, fmt, r.randint(10, 50))
    c.adv(r.uniform(3600, 6 * 3600))  # silence
    if r.random() < 0.5:
        lines.append(f"[{(c.t - timedelta(seconds=r.randint(1000, 3000))).strftime('%Y-%m-%d %H:%M:%S')}] heartbeat: still alive")
    lines.append(slurm_cancel(c, "TIME LIMIT", step=r.random() < 0.4))
    emit(sid, "hang", c, lines, -15, "hang:slurm_time_limit",
         "no progress for hours before the time limit: the timeout is secondary, hang is the cause")


def gen_oom_killer(sid, i):
    c = Ctx(sid); r = c.r
    lines = noise(c) + progress(c, r.choice(["hf", "plain", "megatron"]), r.randint(3, 30))
    step = f"{c.jobid}.{r.choice(['0', 'batch', '0'])}"
    lines.append(f"slurmstepd: error: Detected {r.randint(1, 4)} oom_kill event{'s' if r.random() < 0.5 else ''} in StepId={step}. Some of the step tasks have been OOM Killed.")
    if i % 2 == 0:
        lines.append(f"srun: error: {c.node}: task {r.randrange(8)}: Out Of Memory")
        rc = 137
    else:
        lines = lines[:-1] + torchrun_summary(c, r.randrange(8), signal=(9, "SIGKILL")) + lines[-1:]
        rc = 1
    emit(sid, "oom_killer", c, lines, rc, "oom_killer:slurm")


ASSET = [
    lambda c, repo: ("huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-{0:08x}-{1:024x})\n\n"
                     "Cannot access gated repo for url https://huggingface.co/{repo}/resolve/main/config.json.\n"
                     "Access to model {repo} is restricted. You must be authenticated to access it.\n\n"
                     "The above exception was the direct cause of the following exception:\n\n"
                     "Traceback (most recent call last):\n  File \"/workspace/train.py\", line 41, in <module>\n    model = AutoModelForCausalLM.from_pretrained(args.model)\n"
                     "OSError: You are trying to access a gated repo.\nMake sure to have access to it at https://huggingface.co/{repo}.\n"
                     "401 Client Error. (Request ID: Root=1-{0:08x}-{1:024x})\n\nCannot access gated repo for url https://huggingface.co/{repo}/resolve/main/config.json.\n"
                     "Access to model {repo} is restricted. You must be authenticated to access it.").format(c.r.getrandbits(32), c.r.getrandbits(96), repo=repo),
    lambda c, repo: ("OSError: You are trying to access a gated repo.\nMake sure to request access at https://huggingface.co/{repo} and pass a token having permission to this repo either by logging in with `huggingface-cli login` or by passing `token=<your_token>`.").format(repo=repo),
    lambda c, repo: (f"OSError: Can't load tokenizer for '{repo}'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory "
                     f"with the same name. Otherwise, make sure '{repo}' is the correct path to a directory containing all relevant files for a LlamaTokenizerFast tokenizer."),
    lambda c, repo: (f"OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like {repo} is not the path to a "
                     "directory containing a file named config.json.\nCheckout your internet connection or see how to run the library in offline mode at "
                     "'https://huggingface.co/docs/transformers/installation#offline-mode'."),
    lambda c, repo: (f"huggingface_hub.utils._errors.RepositoryNotFoundError: 401 Client Error. (Request ID: Root=1-{c.r.getrandbits(32):08x})\n\n"
                     f"Repository Not Found for url: https://huggingface.co/api/models/{repo}/revision/main.\nPlease make sure you specified the correct `repo_id` and `repo_type`.\n"
                     "If you are trying to access a private or gated repo, make sure you are authenticated.\nInvalid username or password."),
    lambda c, repo: (f"OSError: {repo} does not appear to have a file named pytorch_model.bin, tf_model.h5, model.ckpt or flax_model.msgpack."),
    lambda c, repo: (f"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/{repo}/resolve/main/model-00001-of-00004.safetensors"),
    lambda c, repo: (f"OSError: Incorrect path_or_model_id: '/models/{repo.split('/')[-1]}'. Please provide either the path to a local folder or the repo_id of a model on the Hub."),
    lambda c, repo: ("huggingface_hub.utils._errors.LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been disabled. "
                     "To enable hf.co look-ups and downloads online, set 'local_files_only' to False."),
    lambda c, repo: (f"ValueError: Tokenizer class LlamaTokenizer does not exist or is not currently imported."),
]


def gen_asset(sid, i):
    c = Ctx(sid); r = c.r
    repo = r.choice(["meta-llama/Llama-2-7b-hf", "meta-llama/Meta-Llama-3-8B", "mistralai/Mistral-7B-v0.1", "google/gemma-7b",
                     "bigscience/bloom-7b1", "tiiuae/falcon-40b", "myorg/private-sft-v3"])
    lines = noise(c, r.randint(0, 3))
    if r.random() < 0.5:
        lines.append(f"loading model {repo} (revision=main, torch_dtype=bfloat16)")
    msg = ASSET[i % len(ASSET)](c, repo)
    lines += py_tb([("/workspace/train.py", 41, "<module>", "model = AutoModelForCausalLM.from_pretrained(args.model)"),
                    ("/opt/conda/lib/python3.10/site-packages/transformers/models/auto/auto_factory.py", 488, "from_pretrained",
                     "resolved_config_file = cached_file(")], msg)
    if c.world > 4 and r.random() < 0.5:
        lines += torchrun_summary(c, 0)
    emit(sid, "asset_error", c, lines, 1, "asset_error")


def gen_straggler(sid, i):
    c = Ctx(sid); r = c.r
    world = r.choice([4, 8, 8, 16])
    slow = r.randrange(world)
    lines = noise(c, 2)
    base = r.uniform(0.3, 1.0)
    losses = loss_curve(r, 30)
    for k in range(30):
        step = (k + 1) * 10
        for rank in range(world):
            comp = base * r.uniform(0.95, 1.05) * (r.uniform(2.5, 3.8) if rank == slow else 1.0)
            wait = 0.0 if rank == slow else base * r.uniform(1.6, 2.7)
            if i % 2 == 0:
                lines.append(f"[rank{rank}] step {step} loss {losses[k] + r.gauss(0, 0.01):.4f} fwd_bwd {comp * 1000:.0f}ms allreduce_wait {wait * 1000:.0f}ms")
            elif rank == 0 or rank == slow:
                lines.append(f"{c.ts()} rank={rank} host={c.node if rank < 8 else NODES[(NODES.index(c.node) + 1) % len(NODES)]} iter={step} "
                             f"compute_time={comp:.3f}s comm_wait={wait:.3f}s")
        c.adv(base * 3 * 10)
    lines.append(f"done: 300 iterations, final loss {losses[-1]:.4f}")
    emit(sid, "straggler", c, lines, 0, "straggler", f"rank {slow} computes ~3x slower; the peers wait in the allreduce")


def gen_throughput(sid, i):
    c = Ctx(sid); r = c.r
    k = i % 3
    lines = noise(c, 2)
    if k == 0:
        lines += ["CUDA_LAUNCH_BLOCKING=1", "NCCL_DEBUG=WARN", f"environment: CUDA_LAUNCH_BLOCKING=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
        lines += progress(c, r.choice(["hf", "plain", "megatron"]), 40, step_time=r.uniform(3.0, 6.0))
        note = "CUDA_LAUNCH_BLOCKING=1 left set: every kernel launch serialised"
    elif k == 1:
        lines += nccl_info(c, ranks=4, net="Socket")
        lines += [f"{c.node}:{c.pid}:{c.pid + 40} [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0",
                  f"{c.node}:{c.pid}:{c.pid + 40} [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/Socket/1"]
        lines += progress(c, r.choice(["megatron", "ds", "plain"]), 40, step_time=r.uniform(8, 20))
        note = "inter-node collectives over NET/Socket (TCP) instead of InfiniBand"
    else:
        st = r.uniform(0.3, 0.6)
        losses = loss_curve(r, 30)
        for s in range(30):
            lines += progress(c, "hf", 1, log_every=1, step0=s, step_time=st, losses=[losses[s]], lr0=2e-5)
            lines.append(f"Saving model checkpoint to ./output/checkpoint-{s + 1}")
            c.adv(r.uniform(25, 60))
        note = "a full checkpoint saved at every step (save_steps=1)"
    lines.append("Training completed.")
    emit(sid, "throughput_bound", c, lines, 0, "throughput_bound", note)


def gen_underutil(sid, i):
    c = Ctx(sid); r = c.r
    lines = noise(c, 1)
    k = i % 3
    if k == 0:
        lines += [f"/opt/conda/lib/python3.10/site-packages/lightning/pytorch/trainer/connectors/data_connector.py:441: The 'train_dataloader' does not have many workers which may be a bottleneck. "
                  f"Consider increasing the value of the `num_workers` argument` to `num_workers={r.choice([31, 47, 63])}` in the `DataLoader` to improve performance."]
    losses = loss_curve(r, 30)
    for s in range(30):
        data = r.uniform(0.6, 1.4)
        comp = r.uniform(0.05, 0.12)
        if k == 2:
            lines.append(f"Train: 0 [{(s + 1) * 20:>5d}/{3000} ({(s + 1) * 20 / 30:.0f}%)]  Loss: {losses[s]:.3f} ({losses[s] * 1.05:.3f})  Time: {data + comp:.3f}s, "
                         f"{256 / (data + comp):.2f}/s  ({data + comp:.3f}s, {256 / (data + comp):.2f}/s)  LR: 1.000e-03  Data: {data:.3f} ({data:.3f})")
        else:
            lines.append(f"step {s * 20} loss {losses[s]:.4f} step_time {data + comp:.2f}s data_time {data:.2f}s")
        if s % 10 == 0:
            lines.append(f"# gpu   sm   mem   enc   dec   mclk   pclk\n    0    {r.randint(3, 14)}     {r.randint(1, 6)}     0     0   1593   1410")
    lines.append("finished")
    emit(sid, "underutilized", c, lines, 0, "underutilized")


def gen_env_cuda(sid, i):
    c = Ctx(sid); r = c.r
    k = i % 5
    lines = noise(c, r.randint(0, 2))
    if k == 0:
        msg = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version "
               "from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.")
    elif k == 1:
        lines.append(f"/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:173: UserWarning: \n{c.gpu.replace('-', ' ')} with CUDA capability sm_90 is not compatible with the current PyTorch installation.\n"
                     "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.")
        msg = "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1."
    elif k == 2:
        msg = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"
    elif k == 3:
        msg = ("ImportError: /opt/conda/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
               "_ZN3c104cuda9SetDeviceEi")
    else:
        lines += ["", "===================================BUG REPORT===================================",
                  "CUDA SETUP: CUDA runtime path found: /usr/local/cuda-11.8/lib64/libcudart.so",
                  "CUDA SETUP: Highest compute capability among GPUs detected: 9.0",
                  "CUDA SETUP: Detected CUDA version 118"]
        msg = ("RuntimeError: \n        CUDA Setup failed despite GPU being available. Please run the following command to get more information:\n\n"
               "        python -m bitsandbytes\n\n        Inspect the output of the command and see if you can locate CUDA libraries. You might need to add them\n"
               "        to your LD_LIBRARY_PATH. If you suspect a bug, please take the information from python -m bitsandbytes\n"
               "        and open an issue at: https://github.com/TimDettmers/bitsandbytes/issues")
    lines += py_tb([("/workspace/train.py", 17, "<module>", "model = model.to(device)")], msg)
    emit(sid, "env_mismatch", c, lines, 1, "env_mismatch:cuda")


def gen_device_mismatch(sid, i):
    c = Ctx(sid); r = c.r
    lines = noise(c, r.randint(0, 3)) + progress(c, r.choice(["hf", "plain"]), r.choice([0, 0, 5]))
    dev = f"cuda:{r.randrange(8)}"
    msgs = [f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, {dev} and cpu!",
            f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and {dev}! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
            f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1! (when checking argument for argument index in method wrapper_CUDA__index_select)",
            "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
            f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, {dev} and cpu! (when checking argument for argument target in method wrapper_CUDA_nll_loss_forward)"]
    lines += ranked(c, py_tb(TRAIN_FRAMES, msgs[i % len(msgs)]), 0)
    emit(sid, "device_mismatch", c, lines, 1, "device_mismatch")


def gen_rendezvous(sid, i):
    c = Ctx(sid); r = c.r
    host = r.choice(NODES)
    port = r.choice([29500, 29400, 12355, 6000])
    k = i % 4
    lines = [f"master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified." if k == 0 else
             f"[{c.ts()}] launching torchrun --nnodes={r.choice([2, 4, 8])} --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint={host}:{port}"]
    c.adv(r.choice([600, 900, 1800]))
    if k == 0:
        lines += ["torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"]
    elif k == 1:
        lines += [f"[W socket.cpp:601] [c10d] The client socket has failed to connect to [{host}.cluster.local]:{port} (errno: 110 - Connection timed out).",
                  f"torch.distributed.DistNetworkError: The client socket has timed out after 1800s while trying to connect to ({host}, {port})."]
    elif k == 2:
        lines += [f"RuntimeError: Timed out initializing process group in store based barrier on rank: {r.randrange(16)}, for key: store_based_barrier_key:1 "
                  f"(world_size={c.world}, worker_count={c.world - r.randint(1, 4)}, timeout=0:30:00)"]
    else:
        lines += [f"torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
                  ]
    emit(sid, "rendezvous", c, lines, 1, "rendezvous")


def gen_resume_scratch(sid, i):
    c = Ctx(sid); r = c.r
    ck = r.choice(["output/checkpoint-2000", "ckpts/step_15000", "/scratch/run7/checkpoint-800"])
    lines = [f"Namespace(model='llama-7b', resume_from_checkpoint='{ck}', max_steps=5000, lr=2e-05)" if i % 2 == 0 else
             f"resume: {ck}  (SLURM_RESTART_COUNT={r.randint(1, 3)})"]
    lines += noise(c, 2) + progress(c, r.choice(["hf", "megatron"]), 40, log_every=10,
                                    losses=loss_curve(r, 40, start=r.uniform(9.5, 11.0), end=r.uniform(2, 3)))
    emit(sid, "resume_from_scratch", c, lines, 0, "resume_from_scratch", "resume requested, no load marker, loss restarts at its initial value")


def gen_healthy_slow(sid, i):
    c = Ctx(sid); r = c.r
    lines = noise(c, 2)
    losses = loss_curve(r, 40)
    base = r.uniform(0.4, 1.0)
    for k in range(40):
        st = base * (1 + (k / 40) ** 2 * r.uniform(3, 6))
        lines += progress(c, r.choice(["megatron", "plain"]) if k == 0 else ("megatron" if "iteration" in lines[-1] else "plain"), 1,
                          total=400, step0=k * 10, step_time=st, losses=[losses[k]], lr0=1e-4)
    lines.append("training complete")
    emit(sid, "healthy_slow", c, lines, 0, "healthy_slow", "step time grows several-fold over the run; loss keeps falling")


def gen_unknown(sid, i):
    c = Ctx(sid); r = c.r
    lines = noise(c, r.randint(1, 3)) + progress(c, r.choice(["hf", "plain"]), r.randint(0, 10))
    lines += [f"srun: error: {c.node}: task {r.randrange(8)}: Exited with exit code {r.choice([1, 2, 255])}" ,
              f"srun: launch/slurm: _step_signal: Terminating StepId={c.jobid}.0"]
    emit(sid, "unknown", c, lines, 1, "unknown", "a task exited non-zero with nothing decisive in the log")


PLAN = [
    ("cuda_oom", gen_cuda_oom, 12), ("cuda_runtime", gen_cuda_runtime, 12), ("gpu_hardware", gen_gpu_hardware, 12),
    ("thermal_throttle", gen_thermal, 10), ("nccl", gen_nccl, 12), ("asset_error", gen_asset, 12),
    ("timeout", lambda s, i: gen_scheduler(s, i, "timeout"), 10), ("cancelled", lambda s, i: gen_scheduler(s, i, "cancelled"), 10),
    ("preempted", lambda s, i: gen_scheduler(s, i, "preempted"), 10), ("node_fail", lambda s, i: gen_scheduler(s, i, "node_fail"), 10),
    ("hang", gen_hang_slurm, 4), ("oom_killer", gen_oom_killer, 4), ("straggler", gen_straggler, 6),
    ("throughput_bound", gen_throughput, 6), ("underutilized", gen_underutil, 6), ("env_mismatch", gen_env_cuda, 5),
    ("device_mismatch", gen_device_mismatch, 5), ("rendezvous", gen_rendezvous, 4), ("resume_from_scratch", gen_resume_scratch, 3),
    ("healthy_slow", gen_healthy_slow, 4), ("unknown", gen_unknown, 5),
]


def main():
    for mode, fn, n in PLAN:
        for i in range(n):
            fn(f"{mode}-syn-{i + 1:02d}", i)
    capture.upsert_labels(OUT)
    print(f"wrote {len(OUT)} synthetic logs")


if __name__ == "__main__":
    main()
