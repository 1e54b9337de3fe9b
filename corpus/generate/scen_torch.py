"""Real scenarios with CPU PyTorch training and torch.distributed (gloo).

Classes: nan_loss, divergence, healthy, healthy_slow, undertrained,
checkpoint_load, resume_from_scratch, device_mismatch, rendezvous, nccl
(gloo collective failures), straggler, throughput_bound, underutilized.
"""
import os
import subprocess


def register(R):
    sc, PY = R.sc, R.PY
    tr = R.torchrun

    # ------------------------------------------------------------ nan_loss
    sc("nan_loss", "plain_sgd_lr", expect=0, code='''
        import trainlib as T
        T.train(steps=40, lr=2.0, fmt="plain")
        ''', notes="SGD lr=2.0 on MSE: overflow to inf then nan; completes")
    sc("nan_loss", "hf_lr", expect=0, code='''
        import trainlib as T
        T.train(steps=60, lr=1.5, fmt="hf", log_every=5)
        ''')
    sc("nan_loss", "keras_log0", expect=0, code='''
        import torch, trainlib as T
        def nll(pred, y):
            p = torch.sigmoid(pred * 40)
            return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
        x, y = T.make_data(n=640)
        T.train(steps=60, lr=0.5, fmt="keras", n=640, data=(x, (y > 0).float()), loss_fn=nll)
        ''', notes="log(0) in a hand-written BCE")
    sc("nan_loss", "lightning", expect=0, code='''
        import trainlib as T
        T.train(steps=64, lr=1.8, fmt="lightning", n=512)
        ''')
    sc("nan_loss", "megatron", expect=0, code='''
        import trainlib as T
        T.train(steps=50, lr=2.2, fmt="megatron", log_every=5)
        ''')
    sc("nan_loss", "detect_anomaly", expect=1, code='''
        import torch, trainlib as T
        torch.autograd.set_detect_anomaly(True)
        model = T.make_model()
        x, y = T.make_data()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for step in range(1, 20):
            out = model(x[:32])
            loss = torch.sqrt(out.pow(2).mean() - 50.0 * (step > 6))
            print(f"step {step} loss {loss.item():.4f}")
            opt.zero_grad(); loss.backward(); opt.step()
        ''', notes="autograd anomaly mode raises at the NaN")
    sc("nan_loss", "explicit_check_raise", expect=1, unbuffered=True, code='''
        import math, trainlib as T
        def check(step, loss, model):
            if not math.isfinite(loss):
                raise ValueError(f"The loss returned in `training_step` is {loss}.")
        T.train(steps=100, lr=1.6, fmt="lightning", on_step=check)
        ''')
    sc("nan_loss", "loss_scaler_overflow", expect=0, unbuffered=True, code='''
        import math, torch, trainlib as T
        model = T.make_model(); x, y = T.make_data()
        opt = torch.optim.SGD(model.parameters(), lr=2.5)
        scale = 65536.0
        for step in range(1, 41):
            xb, yb = x[(step % 16) * 32:(step % 16) * 32 + 32], y[(step % 16) * 32:(step % 16) * 32 + 32]
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad(); (loss * scale).backward()
            gn = T.grad_norm(model)
            if not math.isfinite(gn):
                scale /= 2
                print(f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale * 2}, reducing to {scale}")
            else:
                for p in model.parameters():
                    p.grad /= scale
                opt.step()
            print(f"step={step} loss={loss.item():.4f} loss_scale={scale}")
        ''', notes="a real dynamic loss scaler: overflow skips that never recover")
    sc("nan_loss", "logging_sgd", expect=0, code='''
        import trainlib as T
        T.train(steps=50, lr=2.5, fmt="logging", log_every=5)
        ''')
    sc("nan_loss", "tqdm_postfix", expect=0, code='''
        import trainlib as T
        T.train(steps=50, lr=2.0, fmt="tqdm")
        print("final checkpoint saved")
        ''')
    sc("nan_loss", "torchrun_ddp_interleaved", expect=0, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        model = torch.nn.parallel.DistributedDataParallel(T.make_model(seed=0))
        x, y = T.make_data(seed=0)
        opt = torch.optim.SGD(model.parameters(), lr=2.0)
        for step in range(1, 31):
            loss = torch.nn.functional.mse_loss(model(x[:32]), y[:32])
            opt.zero_grad(); loss.backward(); opt.step()
            print(f"[rank{r}] step {step} loss {loss.item():.4f}", flush=True)
        ''')

    # ------------------------------------------------------------ divergence (finite)
    sc("divergence", "maximize_bug_plain", expect=0, code='''
        import trainlib as T
        T.train(steps=60, lr=0.5, clip=1.0, fmt="plain", opt_kwargs={"maximize": True})
        ''', notes="optimizer maximizes the loss: rises steadily, stays finite")
    sc("divergence", "frozen_hf_gradnorm0", expect=0, code='''
        import trainlib as T
        T.train(steps=60, lr=5e-5, fmt="hf", frozen=True, log_every=5)
        ''', notes="all weights frozen: flat loss, grad_norm 0")
    sc("divergence", "lr_zero_keras", expect=0, code='''
        import trainlib as T
        T.train(steps=64, lr=0.0, fmt="keras", n=256)
        ''')
    sc("divergence", "shuffled_labels_logging", expect=0, code='''
        import trainlib as T
        T.train(steps=80, lr=0.05, classes=4, shuffle_labels=True, n=4096, hidden=4, fmt="logging", log_every=4)
        ''', notes="labels decorrelated from inputs: plateau at ln(4)")
    sc("divergence", "dead_relu_megatron", expect=0, code='''
        import torch, trainlib as T
        model = T.make_model()
        with torch.no_grad():
            for m in model:
                if isinstance(m, torch.nn.Linear) and m.out_features == 32:
                    m.bias.fill_(-100.0)
        T.train(steps=60, lr=0.01, fmt="megatron", model=model, log_every=5)
        ''', notes="dead ReLUs: no gradient reaches the hidden layers")
    sc("divergence", "spike_after_warmup_plain2", expect=0, code='''
        import trainlib as T
        T.train(steps=90, lr=0.02, clip=1.0, fmt="plain2", log_every=3, lr_schedule=lambda s: 0.02 if s < 30 else 4.0)
        ''', notes="loss falls, then a bad schedule spikes it and it never recovers")
    sc("divergence", "adam_big_lr_lightning", expect=0, code='''
        import trainlib as T
        T.train(steps=96, lr=5.0, opt="adam", classes=8, fmt="lightning", n=1024, hidden=64)
        ''')
    sc("divergence", "maximize_hf", expect=0, code='''
        import trainlib as T
        T.train(steps=50, lr=0.2, clip=1.0, fmt="hf", opt_kwargs={"maximize": True}, log_every=2)
        ''')
    sc("divergence", "torchrun_flat", expect=0, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        model = torch.nn.parallel.DistributedDataParallel(T.make_model(out=4))
        x, y = T.make_data(classes=4, shuffle_labels=True, n=4096, seed=r)
        opt = torch.optim.SGD(model.parameters(), lr=1e-7)
        for step in range(1, 41):
            loss = torch.nn.functional.cross_entropy(model(x[:64]), y[:64])
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 4 == 0:
                print(f"[rank{r}] iter {step} loss {loss.item():.4f} lr 1e-07", flush=True)
        ''', notes="lr 1e-7: the loss never moves")
    sc("divergence", "ds_rising", expect=0, code='''
        import trainlib as T
        T.train(steps=40, lr=0.3, clip=0.5, fmt="ds", opt_kwargs={"maximize": True}, log_every=2)
        ''')
    sc("divergence", "noisy_warnings_flat_tqdm", expect=0, code='''
        import warnings, trainlib as T
        warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
        T.train(steps=60, lr=0.0, fmt="tqdm")
        print("final loss logged to metrics.json")
        ''')

    sc("divergence", "adam_lr_1e6_logging", expect=0, code='''
        import trainlib as T
        T.train(steps=50, lr=1e6, opt="adam", fmt="logging", classes=4, log_every=5)
        ''', notes="absurd lr: the loss explodes to ~1e20 yet stays finite")

    # ------------------------------------------------------------ healthy
    for fmt, extra in [("plain", ""), ("plain2", ", log_every=5"), ("hf", ", log_every=5, save_every=40"),
                       ("keras", ", n=320"), ("lightning", ", n=256"), ("megatron", ", log_every=10, save_every=50"),
                       ("logging", ", log_every=10"), ("tqdm", ""), ("ds", ", log_every=5")]:
        sc("healthy", f"fmt_{fmt}", expect=0, code=f'''
            import trainlib as T
            T.train(steps=100, lr=0.02, fmt="{fmt}"{extra})
            ''')
    sc("healthy", "ddp_gloo_interleaved", expect=0, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        model = torch.nn.parallel.DistributedDataParallel(T.make_model())
        x, y = T.make_data(seed=0)
        opt = torch.optim.SGD(model.parameters(), lr=0.02)
        for step in range(1, 61):
            i = ((step + 8 * r) % 16) * 32
            loss = torch.nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 5 == 0:
                print(f"[rank{r}] step {step}/60 loss {loss.item():.4f}", flush=True)
        dist.barrier()
        if r == 0:
            print("training complete")
        ''')
    sc("healthy", "caught_exception_continues", expect=0, unbuffered=True, code='''
        import traceback, json, trainlib as T
        def hook(step, loss, model):
            if step == 40:
                try:
                    json.loads("{'bad': 1}")
                except Exception:
                    print("WARNING: failed to parse metrics sidecar, skipping")
                    traceback.print_exc()
        T.train(steps=100, lr=0.02, fmt="hf", on_step=hook, log_every=5)
        ''', notes="noisy: a caught, printed traceback mid-run; the run completes fine")
    sc("healthy", "warnings_noise", expect=0, code='''
        import warnings, torch, trainlib as T
        scaler = torch.cuda.amp.GradScaler()
        warnings.warn("The `srun` command is available on your system but is not used.", UserWarning)
        from torch.utils.data import DataLoader, TensorDataset
        dl = DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=8, num_workers=6)
        next(iter(dl))
        T.train(steps=80, lr=0.02, fmt="plain", log_every=4)
        ''', notes="noisy: real torch warnings")

    # ------------------------------------------------------------ healthy_slow
    for fmt, name in [("plain", "linear_slowdown"), ("megatron", "megatron_slowdown"), ("ds", "ds_slowdown"),
                      ("keras", "keras_slowdown"), ("lightning", "lightning_slowdown"), ("tqdm", "tqdm_slowdown")]:
        sc("healthy_slow", name, expect=0, code=f'''
            import trainlib as T
            T.train(steps=64, lr=0.02, fmt="{fmt}", n=512, log_every=(4 if "{fmt}" in ("megatron", "ds", "plain") else 1),
                    step_sleep=lambda s: 0.002 if s < 20 else 0.002 + 0.004 * (s - 20))
            ''', notes="step time grows about 80x over the run (injected sleep); loss keeps falling")

    # ------------------------------------------------------------ undertrained
    for i, (fmt, steps) in enumerate([("plain", 1), ("hf", 2), ("keras", 3), ("lightning", 2), ("megatron", 1),
                                      ("logging", 3), ("ds", 2), ("plain2", 1), ("tqdm", 3)]):
        sc("undertrained", f"{fmt}_{steps}steps", expect=0, code=f'''
            import trainlib as T
            T.train(steps={steps}, lr=0.02, fmt="{fmt}", n={32 * steps})
            ''')
    sc("undertrained", "torchrun_1step", expect=0, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        model = torch.nn.parallel.DistributedDataParallel(T.make_model())
        x, y = T.make_data(seed=0)
        loss = torch.nn.functional.mse_loss(model(x[:32]), y[:32]); loss.backward()
        print(f"[rank{r}] max_steps=1 step 1 loss {loss.item():.4f}", flush=True)
        ''')

    # ------------------------------------------------------------ checkpoint_load
    sc("checkpoint_load", "empty_file", expect=1, setup=lambda c: open(c.path("model.pt"), "wb").close(), code='''
        import torch, trainlib as T
        model = T.make_model()
        print("loading checkpoint model.pt")
        model.load_state_dict(torch.load("model.pt"))
        ''')
    sc("checkpoint_load", "truncated_zip", expect=1, code='''
        import torch, trainlib as T
        torch.save(T.make_model().state_dict(), "ckpt.pt")
        data = open("ckpt.pt", "rb").read()
        open("ckpt.pt", "wb").write(data[: len(data) // 3])
        print("resuming from ckpt.pt")
        sd = torch.load("ckpt.pt", map_location="cpu")
        ''', notes="the job writes a checkpoint then a partial copy replaces it (interrupted save)")
    sc("checkpoint_load", "size_mismatch", expect=1, code='''
        import torch, trainlib as T
        torch.save(T.make_model(hidden=64).state_dict(), "pytorch_model.bin")
        model = T.make_model(hidden=32)
        print("Loading weights from pytorch_model.bin")
        model.load_state_dict(torch.load("pytorch_model.bin"))
        ''')
    sc("checkpoint_load", "missing_unexpected_keys", expect=1, code='''
        import torch, trainlib as T
        wrapped = torch.nn.ModuleDict({"module": T.make_model()})
        torch.save(wrapped.state_dict(), "ddp_ckpt.pt")
        model = T.make_model()
        model.load_state_dict(torch.load("ddp_ckpt.pt"))
        ''', notes="checkpoint saved with a DDP 'module.' prefix")
    sc("checkpoint_load", "garbage_bytes", expect=1, setup=lambda c: open(c.path("last.ckpt"), "wb").write(b"\x00" * 4096), code='''
        import torch
        print("Restoring states from the checkpoint path at last.ckpt")
        ckpt = torch.load("last.ckpt", map_location="cpu")
        ''')
    sc("checkpoint_load", "lfs_pointer", expect=1, setup=lambda c: c.write("pytorch_model.bin",
       "version https://git-lfs.github.com/spec/v1\noid sha256:4d7b8e0f2a1c9e3b5d6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d\nsize 498653184\n"), code='''
        import torch
        state = torch.load("pytorch_model.bin", map_location="cpu")
        ''', notes="a git-lfs pointer file where the weights should be")
    sc("checkpoint_load", "cuda_checkpoint_on_cpu", expect=1, code='''
        import io, zipfile, torch, trainlib as T
        torch.save(T.make_model().state_dict(), "gpu_ckpt.pt")
        # rewrite the storage location tags as a checkpoint saved from cuda:0 would carry
        zin = zipfile.ZipFile("gpu_ckpt.pt")
        items = [(i, zin.read(i.filename)) for i in zin.infolist()]
        with zipfile.ZipFile("gpu_ckpt2.pt", "w") as zout:
            for info, data in items:
                if info.filename.endswith("data.pkl"):
                    data = data.replace(b"X\\x03\\x00\\x00\\x00cpu", b"X\\x06\\x00\\x00\\x00cuda:0")
                zout.writestr(info, data)
        print("loading gpu_ckpt2.pt")
        sd = torch.load("gpu_ckpt2.pt")
        ''', notes="checkpoint tagged as saved on cuda:0, loaded on this CPU-only node")
    sc("checkpoint_load", "no_valid_checkpoint", expect=1, setup=lambda c: os.makedirs(c.path("output", "checkpoint-500")), code='''
        import os
        resume = "output/checkpoint-500"
        print(f"resume_from_checkpoint={resume}")
        if not any(os.path.isfile(os.path.join(resume, f)) for f in ("pytorch_model.bin", "model.safetensors")):
            raise ValueError(f"Can't find a valid checkpoint at {resume}")
        ''', notes="the check is the job's own (HF Trainer wording); the directory really is empty")
    sc("checkpoint_load", "optimizer_groups", expect=1, code='''
        import torch, trainlib as T
        m1 = T.make_model()
        o1 = torch.optim.AdamW([{"params": list(m1.parameters())[:2]}, {"params": list(m1.parameters())[2:]}], lr=1e-3)
        torch.save({"optimizer": o1.state_dict()}, "optim.pt")
        m2 = T.make_model()
        o2 = torch.optim.AdamW(m2.parameters(), lr=1e-3)
        print("restoring optimizer state")
        o2.load_state_dict(torch.load("optim.pt")["optimizer"])
        ''')
    sc("checkpoint_load", "torchrun_size_mismatch", expect=1, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, trainlib as T, os
        dist.init_process_group("gloo")
        r = dist.get_rank()
        if r == 0:
            torch.save(T.make_model(d=16, hidden=48).state_dict(), "ckpt_step1000.pt")
        dist.barrier()
        model = T.make_model(d=16, hidden=32)
        print(f"[rank {r}] loading ckpt_step1000.pt", flush=True)
        model.load_state_dict(torch.load("ckpt_step1000.pt"))
        ''')
    sc("checkpoint_load", "prefix_then_reload", expect=1, unbuffered=True, code='''
        import torch, trainlib as T
        model, loss = T.train(steps=40, fmt="hf", save_every=20, footer=False)
        open("checkpoints/checkpoint-40.pt", "r+b").truncate(100)
        print("reloading best checkpoint checkpoints/checkpoint-40.pt for evaluation")
        torch.load("checkpoints/checkpoint-40.pt")
        ''', notes="noisy: training, then reload of a checkpoint truncated on disk")

    # ------------------------------------------------------------ resume_from_scratch
    def parent_ckpt(ctx):
        subprocess.run([PY, "-c", "import torch, trainlib as T; m, l = T.train(steps=300, fmt='plain', log_every=300);"
                        "import os; os.makedirs('outputs/checkpoint-300', exist_ok=True);"
                        "torch.save({'step': 300, 'model': m.state_dict()}, 'outputs/checkpoint-300/state.pt')"],
                       cwd=ctx.dir, check=True, capture_output=True, env={"OMP_NUM_THREADS": "1"})

    sc("resume_from_scratch", "hf_arg_ignored", expect=0, setup=parent_ckpt, cmd=[PY, "train.py", "--resume_from_checkpoint", "outputs/checkpoint-300"], code='''
        import argparse, trainlib as T
        p = argparse.ArgumentParser()
        p.add_argument("--resume_from_checkpoint")
        p.add_argument("--max_steps", type=int, default=300)
        args = p.parse_args()
        print(args)
        T.train(steps=args.max_steps, lr=0.02, fmt="hf", log_every=20)
        ''', notes="resume requested; the job never loads it; loss restarts from its initial value")
    sc("resume_from_scratch", "megatron_no_latest", expect=0, setup=parent_ckpt, cmd=[PY, "pretrain_gpt.py", "--load", "outputs", "--save", "outputs", "--train-iters", "200"],
       script="pretrain_gpt.py", code='''
        import sys, os, trainlib as T
        load = sys.argv[sys.argv.index("--load") + 1]
        print("using world size: 1, data-parallel size: 1, tensor-model-parallel size: 1")
        print(f"  load ............................................ {load}")
        tracker = os.path.join(load, "latest_checkpointed_iteration.txt")
        if not os.path.isfile(tracker):
            print(f"WARNING: could not find the metadata file {tracker} ")
            print("    will not load any checkpoints and will start from random")
        T.train(steps=200, lr=0.02, fmt="megatron", log_every=10)
        ''', notes="load dir given but its tracker file is missing; starts from random")
    sc("resume_from_scratch", "lightning_ckpt_path_unused", expect=0, setup=parent_ckpt, cmd=[PY, "train.py", "--ckpt_path", "outputs/checkpoint-300/state.pt"], code='''
        import sys, trainlib as T
        ckpt_path = sys.argv[2]
        print(f"config: {{'max_steps': 256, 'ckpt_path': '{ckpt_path}', 'precision': 32}}")
        T.train(steps=256, lr=0.02, fmt="lightning", n=512)
        ''')
    sc("resume_from_scratch", "plain_resume_flag", expect=0, setup=parent_ckpt, env={"RESUME": "1", "CKPT_DIR": "outputs"}, code='''
        import os, glob, trainlib as T
        print(f"RESUME={os.environ['RESUME']} CKPT_DIR={os.environ['CKPT_DIR']}")
        ckpts = sorted(glob.glob(os.path.join(os.environ["CKPT_DIR"], "*.pt")))  # wrong depth: finds nothing
        start = 0
        if ckpts:
            print("loading", ckpts[-1])
        print(f"starting at step {start}")
        T.train(steps=300, lr=0.02, fmt="plain", log_every=10)
        ''')
    sc("resume_from_scratch", "keras_initial_epoch", expect=0, setup=parent_ckpt, code='''
        import trainlib as T
        print("Resuming training (requested initial_epoch=5, weights=outputs/checkpoint-300)")
        T.train(steps=100, lr=0.02, fmt="keras", n=320)
        ''')
    sc("resume_from_scratch", "torchrun_resume", expect=0, setup=parent_ckpt, cmd=lambda c: tr(c) + ["--resume", "outputs/checkpoint-300/state.pt"], code='''
        import sys, torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        resume = sys.argv[sys.argv.index("--resume") + 1]
        if r == 0:
            print(f"args: resume={resume} max_steps=120", flush=True)
        model = torch.nn.parallel.DistributedDataParallel(T.make_model())
        x, y = T.make_data(seed=0)
        opt = torch.optim.SGD(model.parameters(), lr=0.02)
        for step in range(1, 121):
            i = ((step + 8 * r) % 16) * 32
            loss = torch.nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 10 == 0:
                print(f"[rank{r}] step {step} loss {loss.item():.4f}", flush=True)
        ''')
    sc("resume_from_scratch", "logging_resume", expect=0, setup=parent_ckpt, code='''
        import logging, trainlib as T
        logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
        logging.getLogger("train").info("resume_from_checkpoint=True output_dir=outputs overwrite_output_dir=False")
        T.train(steps=200, lr=0.02, fmt="logging", log_every=10)
        ''')

    # ------------------------------------------------------------ device_mismatch (meta vs cpu)
    sc("device_mismatch", "meta_output_vs_cpu_target", expect=1, code='''
        import torch, trainlib as T
        model = T.make_model()
        model[-1].to("meta")  # head left un-materialised after lazy init
        x, y = T.make_data()
        loss = torch.nn.functional.mse_loss(model(x[:8]), y[:8])
        ''')
    sc("device_mismatch", "where_meta", expect=1, code='''
        import torch
        scores = torch.randn(2, 8)
        mask = torch.ones(2, 8, dtype=torch.bool)
        fill = torch.tensor(float("-inf"), device="meta")
        print(torch.where(mask, scores, fill))
        ''')
    sc("device_mismatch", "pos_embedding_buffer", expect=1, code='''
        import torch, torch.nn as nn
        class Emb(nn.Module):
            def __init__(self):
                super().__init__()
                self.tok = nn.Embedding(100, 16)
                self.register_buffer("pos", torch.empty(64, 16, device="meta"))
            def forward(self, ids):
                return self.tok(ids) + self.pos[: ids.shape[1]]
        print(Emb()(torch.randint(0, 100, (2, 10))).shape)
        ''')
    sc("device_mismatch", "hf_prefix_eval", expect=1, unbuffered=True, code='''
        import torch, trainlib as T
        model, loss = T.train(steps=30, fmt="hf", footer=False)
        print("***** Running Evaluation *****")
        ref = torch.zeros(32, 1, device="meta")
        x, y = T.make_data()
        print(torch.nn.functional.l1_loss(model(x[:32]), ref))
        ''', notes="noisy")
    sc("device_mismatch", "inplace_add", expect=1, code='''
        import torch, trainlib as T
        model = T.make_model()
        ema = {k: v.to("meta") for k, v in model.state_dict().items()}
        for k, v in model.state_dict().items():
            v.mul_(0.999).add_(ema[k])
        ''')
    sc("device_mismatch", "clamp_torchrun", expect=1, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        lo = torch.zeros(4, device="meta")
        print(f"rank {r}: clipping logits", flush=True)
        print(torch.clamp(torch.randn(4), min=lo))
        ''')
    sc("device_mismatch", "maximum_loss", expect=1, code='''
        import torch
        margin = torch.randn(16, device="meta")
        hinge = torch.maximum(1 - torch.randn(16), margin)
        ''')
    sc("device_mismatch", "lerp_ema", expect=1, code='''
        import torch, trainlib as T
        a, b = T.make_model(), T.make_model().to("meta")
        for pa, pb in zip(a.parameters(), b.parameters()):
            pa.data.lerp_(pb.data, 0.01)
        ''')

    # ------------------------------------------------------------ rendezvous
    sc("rendezvous", "torchrun_c10d_join_timeout", expect=1, cmd=lambda c: [PY, R.TORCHRUN, "--nnodes=2", "--nproc_per_node=1",
       "--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{c.port}", "--rdzv_conf", "join_timeout=6", "train.py"], code='''
        import torch.distributed as dist
        dist.init_process_group("gloo")
        print("never reached")
        ''', notes="second node never joins")
    sc("rendezvous", "torchrun_c10d_2procs_timeout", expect=1, cmd=lambda c: [PY, R.TORCHRUN, "--nnodes=3", "--nproc_per_node=2",
       "--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{c.port}", "--rdzv_id=job8812", "--rdzv_conf", "join_timeout=5", "train.py"], code='print("x")')
    sc("rendezvous", "tcp_init_missing_rank", expect=1, code='''
        import datetime, os, torch.distributed as dist
        port = os.environ["MASTER_PORT_HINT"]
        print(f"rank 0 of 2: init tcp://127.0.0.1:{port}", flush=True)
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=2,
                                timeout=datetime.timedelta(seconds=5))
        ''')
    sc("rendezvous", "client_no_master", expect=1, env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "{PORT}", "RANK": "1", "WORLD_SIZE": "2"}, code='''
        import datetime, torch.distributed as dist
        print("rank 1 connecting to master", flush=True)
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
        ''')
    sc("rendezvous", "addr_in_use", expect=1, env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "{PORT}", "RANK": "0", "WORLD_SIZE": "2"}, code='''
        import datetime, os, socket, torch.distributed as dist
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", int(os.environ["MASTER_PORT"]))); s.listen()
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
        ''', notes="another process already holds MASTER_PORT")
    sc("rendezvous", "unresolvable_master", expect=1, env={"MASTER_ADDR": "gpu-node-017.cluster.internal", "MASTER_PORT": "29500", "RANK": "1", "WORLD_SIZE": "16"}, code='''
        import datetime, torch.distributed as dist
        print("init_process_group backend=gloo world_size=16 rank=1", flush=True)
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
        ''')
    sc("rendezvous", "file_init_timeout", expect=1, code='''
        import datetime, torch.distributed as dist
        dist.init_process_group("gloo", init_method="file:///tmp/gac_shared_init_" + __import__("os").path.basename(__import__("os").getcwd()),
                                rank=0, world_size=4, timeout=datetime.timedelta(seconds=5))
        ''')
    sc("rendezvous", "torchrun_c10d_unreachable", expect=1, cmd=lambda c: [PY, R.TORCHRUN, "--nnodes=2", "--nproc_per_node=2",
       "--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.2:{c.port}", "--rdzv_conf", "join_timeout=6,read_timeout=5", "train.py"], code='print("x")',
       notes="rendezvous endpoint is not on this host; nothing listens there")

    # ------------------------------------------------------------ nccl class, real gloo collective failures
    sc("nccl", "gloo_peer_exits", expect=1, cmd=lambda c: tr(c), code='''
        import os, time, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        for step in range(1, 50):
            t = torch.ones(1 << 16)
            dist.all_reduce(t)
            if step % 5 == 0:
                print(f"[rank{r}] step {step} allreduce ok", flush=True)
            if r == 1 and step == 20:
                os._exit(0)
        ''', notes="a peer leaves mid-run; the survivor's collective fails (gloo, not NCCL)")
    sc("nccl", "gloo_recv_timeout", expect=1, cmd=lambda c: tr(c), code='''
        import datetime, time, torch, torch.distributed as dist
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
        r = dist.get_rank()
        for step in range(1, 11):
            if r == 1 and step == 8:
                time.sleep(12)
            t = torch.ones(8); dist.all_reduce(t)
            print(f"[rank{r}] step {step} ok", flush=True)
        ''', notes="collective times out while a peer stalls (gloo)")
    sc("nccl", "ddp_peer_sigkill_self", expect=1, cmd=lambda c: tr(c), code='''
        import os, signal, torch, torch.distributed as dist, trainlib as T
        dist.init_process_group("gloo")
        r = dist.get_rank()
        model = torch.nn.parallel.DistributedDataParallel(T.make_model())
        x, y = T.make_data(seed=0)
        opt = torch.optim.SGD(model.parameters(), lr=0.02)
        for step in range(1, 200):
            loss = torch.nn.functional.mse_loss(model(x[:32]), y[:32])
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 10 == 0:
                print(f"[rank{r}] step {step} loss {loss.item():.4f}", flush=True)
            if r == 0 and step == 60:
                os._exit(1)
        ''', notes="rank 0 exits abruptly without a message; rank 1's allreduce fails")
    sc("nccl", "mp_spawn_gloo", expect=1, code='''
        import datetime, os, time, torch, torch.distributed as dist, torch.multiprocessing as mp
        def worker(rank, port):
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                                    timeout=datetime.timedelta(seconds=6))
            for step in range(1, 40):
                t = torch.full((1024,), float(rank)); dist.all_reduce(t)
                if step % 10 == 0:
                    print(f"rank {rank} step {step} sum {t[0].item()}", flush=True)
                if rank == 1 and step == 25:
                    time.sleep(15)
        if __name__ == "__main__":
            mp.spawn(worker, args=(int(os.environ["MASTER_PORT_HINT"]),), nprocs=2)
        ''')
    sc("nccl", "gloo_broadcast_peer_gone", expect=1, cmd=lambda c: tr(c), code='''
        import os, sys, torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        print(f"rank {r}: broadcasting parameters", flush=True)
        t = torch.zeros(1 << 20)
        dist.broadcast(t, src=0)
        for it in range(1, 30):
            dist.all_reduce(t)
            if r == 0 and it == 12:
                sys.exit(0)
        print(f"rank {r}: done", flush=True)
        ''')

    # ------------------------------------------------------------ straggler (real, 2 gloo ranks)
    for i, (slow, fmt) in enumerate([(1, "plain"), (0, "detailed"), (1, "detailed"), (1, "plain")]):
        sc("straggler", f"rank{slow}_slow_{fmt}_{i}", expect=0, cmd=lambda c: tr(c), code=f'''
            import time, torch, torch.distributed as dist, trainlib as T
            dist.init_process_group("gloo")
            r = dist.get_rank()
            model = torch.nn.parallel.DistributedDataParallel(T.make_model())
            x, y = T.make_data(seed=0)
            opt = torch.optim.SGD(model.parameters(), lr=0.02)
            for step in range(1, 41):
                t0 = time.time()
                i = ((step + 8 * r) % 16) * 32
                loss = torch.nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
                if r == {slow}:
                    time.sleep(0.08)  # this rank's host is slower
                t1 = time.time()
                opt.zero_grad(); loss.backward(); opt.step()
                t2 = time.time()
                if step % 5 == 0:
                    if "{fmt}" == "plain":
                        print(f"[rank{{r}}] step {{step}} loss {{loss.item():.4f}} step_time {{(t2 - t0) * 1000:.0f}}ms", flush=True)
                    else:
                        print(f"rank={{r}} step={{step}} loss={{loss.item():.4f}} fwd_ms={{(t1 - t0) * 1000:.1f}} bwd_allreduce_ms={{(t2 - t1) * 1000:.1f}}", flush=True)
            ''', notes=f"rank {slow} is made slower by a per-step sleep; peers wait in the allreduce")

    # ------------------------------------------------------------ throughput_bound (real save storm)
    for fmt in ("hf", "megatron", "plain", "lightning"):
        sc("throughput_bound", f"save_every_step_{fmt}", expect=0, code=f'''
            import trainlib as T
            T.train(steps=40, lr=0.02, fmt="{fmt}", n=320, save_every=1, hidden=256)
            ''', notes="checkpoint saved after every optimizer step")

    # ------------------------------------------------------------ underutilized (real slow input pipeline)
    for i, nw in enumerate((0, 8, 1, 2)):
        sc("underutilized", f"slow_loader_w{nw}", expect=0, code=f'''
            import time, torch
            from torch.utils.data import Dataset, DataLoader
            import trainlib as T
            class Slow(Dataset):
                def __len__(self):
                    return 256
                def __getitem__(self, i):
                    time.sleep(0.004)  # on-the-fly decode/tokenize
                    g = torch.Generator().manual_seed(i)
                    x = torch.randn(16, generator=g)
                    return x, x.sum(0, keepdim=True)
            if __name__ == "__main__":
                model = T.make_model(); opt = torch.optim.SGD(model.parameters(), lr=0.02)
                dl = DataLoader(Slow(), batch_size=16, num_workers={nw})
                t_end = time.time()
                for step, (x, y) in enumerate(dl, 1):
                    t_data = time.time() - t_end
                    t0 = time.time()
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    opt.zero_grad(); loss.backward(); opt.step()
                    t_comp = time.time() - t0
                    print(f"Train: [{{step}}/{{len(dl)}}] Loss: {{loss.item():.4f}} Time: {{t_data + t_comp:.3f}}s Data: {{t_data:.3f}}s ({{100 * t_data / (t_data + t_comp):.0f}}% waiting on input)", flush=True)
                    t_end = time.time()
            ''', notes=f"dataloader with {nw} workers is the bottleneck")
