"""Real scenarios: Python exceptions at startup or in user code.

Classes: traceback, div_zero, assertion, file_not_found, permission,
missing_module, config_error, data_error, runtime_error, unknown.
"""
import os


def register(R):
    sc, PY = R.sc, R.PY
    tr = lambda ctx, *a, **k: R.torchrun(ctx, *a, **k)  # noqa: E731

    # ------------------------------------------------------------ traceback
    sc("traceback", "keyerror_config", expect=1, code='''
        import json
        cfg = {"model": {"hidden": 64, "layers": 2}, "optim": {"lr": 3e-4}}
        print("loaded config:", json.dumps(cfg))
        def build(cfg):
            return cfg["model"]["hidden"], cfg["optim"]["weight_decay"]
        hidden, wd = build(cfg)
        ''')
    sc("traceback", "indexerror_dataset", expect=1, code='''
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Shards(Dataset):
            def __init__(self):
                self.items = [torch.randn(8) for _ in range(100)]
            def __len__(self):
                return 128  # stale length after filtering
            def __getitem__(self, i):
                return self.items[i]
        dl = DataLoader(Shards(), batch_size=16)
        for step, batch in enumerate(dl):
            print(f"step {step} batch {tuple(batch.shape)} mean {batch.mean():.4f}")
        ''')
    sc("traceback", "typeerror_none", expect=1, code='''
        import trainlib as T
        def lr_at(step, warmup=None):
            return 1e-3 * min(1.0, step / warmup)
        model, loss = T.train(steps=8, lr=0.05, fmt="plain")
        print("eval lr", lr_at(10))
        ''')
    sc("traceback", "attributeerror_none", expect=1, code='''
        import torch
        class Trainer:
            def __init__(self):
                self.scheduler = None
            def step(self):
                self.scheduler.step()
        model = torch.nn.Linear(4, 2)
        t = Trainer()
        print("starting training loop")
        t.step()
        ''')
    sc("traceback", "nameerror", expect=1, code='''
        import trainlib as T
        print("epoch 1")
        model, loss = T.train(steps=5, fmt="plain2")
        print(f"epoch 1 done, val loss {val_loss:.3f}")
        ''')
    sc("traceback", "unpack_valueerror", expect=1, code='''
        import torch
        batches = [(torch.randn(4, 3), torch.randn(4), torch.ones(4)) for _ in range(3)]
        for step, (x, y) in enumerate(batches):
            print(step, x.shape)
        ''')
    sc("traceback", "forward_kwarg_typeerror", expect=1, code='''
        import torch, torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 2)
            def forward(self, input_ids):
                return self.fc(input_ids)
        model = Net()
        batch = {"input_ids": torch.randn(4, 8), "attention_mask": torch.ones(4, 8)}
        out = model(**batch)
        ''')
    sc("traceback", "dataloader_worker_keyerror", expect=1, code='''
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Records(Dataset):
            def __init__(self):
                self.rows = [{"text": "a b c", "label": 1}] * 50 + [{"txt": "oops", "label": 0}] * 10
            def __len__(self):
                return len(self.rows)
            def __getitem__(self, i):
                r = self.rows[i]
                return torch.tensor([len(r["text"])]), torch.tensor(r["label"])
        if __name__ == "__main__":
            dl = DataLoader(Records(), batch_size=8, num_workers=2)
            for i, (x, y) in enumerate(dl):
                print(f"batch {i}: {x.sum().item()}", flush=True)
        ''')
    sc("traceback", "recursion", expect=1, code='''
        def flatten(cfg):
            out = {}
            for k, v in cfg.items():
                if isinstance(v, dict):
                    out.update(flatten(v))
                else:
                    out[k] = v
            return out
        cfg = {"a": 1}
        cfg["self"] = cfg
        print(flatten(cfg))
        ''')
    sc("traceback", "long_prefix_hf_keyerror_eval", expect=1, unbuffered=True, notes="noisy: 200 healthy HF-style steps then crash at eval", code='''
        import warnings, trainlib as T
        warnings.warn("`resume_download` is deprecated and will be removed in version 1.0.0.", FutureWarning)
        model, loss = T.train(steps=200, lr=0.02, fmt="hf", save_every=100, quiet_save=False, footer=False)
        metrics = {"eval_loss": loss, "eval_runtime": 1.2}
        print("***** Running Evaluation *****")
        print(f"  Num examples = 64")
        print("eval accuracy", metrics["eval_accuracy"])
        ''')
    sc("traceback", "tqdm_overflow", expect=1, notes="noisy: tqdm progress bar", code='''
        import math, trainlib as T
        from tqdm import tqdm
        losses = []
        for step in tqdm(range(40), desc="Epoch 0"):
            losses.append(0.9 ** step)
        print("perplexity:", math.exp(1000 * losses[0]))
        ''')
    sc("traceback", "torchrun_typeerror_2ranks", expect=1, cmd=lambda c: tr(c), notes="torchrun, both ranks raise", code='''
        import os, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        print(f"[rank{rank}] initialised, world size {dist.get_world_size()}", flush=True)
        seq_len = os.environ.get("SEQ_LEN", "128")
        x = torch.zeros(4, seq_len)
        ''')
    sc("traceback", "caught_then_fatal", expect=1, unbuffered=True, notes="noisy: a caught, logged exception first; a different uncaught one ends the run", code='''
        import logging, trainlib as T
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        log = logging.getLogger("train")
        try:
            import wandb_fake_logger
        except ImportError:
            log.exception("experiment tracker unavailable, continuing without it")
        model, loss = T.train(steps=30, fmt="logging", footer=False)
        tags = ("baseline")
        tags.append("final")
        ''')

    # ------------------------------------------------------------ div_zero
    sc("div_zero", "plain_lr_warmup", expect=1, code='''
        warmup_steps = 0
        def lr_lambda(step):
            return min(1.0, step / warmup_steps)
        print("lr at step 0:", lr_lambda(0))
        ''')
    sc("div_zero", "modulo_accum", expect=1, code='''
        import trainlib as T
        grad_accum = int("0")
        model, loss = T.train(steps=4, fmt="plain", footer=False)
        for step in range(10):
            if step % grad_accum == 0:
                print("optimizer step", step)
        ''')
    sc("div_zero", "empty_eval_mean", expect=1, unbuffered=True, notes="noisy: healthy training then empty eval set", code='''
        import trainlib as T
        model, loss = T.train(steps=50, fmt="keras", n=320, batch=32)
        eval_losses = [l for l in [] if l > 0]
        print("evaluating on 0 examples")
        print("eval_loss:", sum(eval_losses) / len(eval_losses))
        ''')
    sc("div_zero", "torch_lambdalr", expect=1, code='''
        import torch
        model = torch.nn.Linear(4, 4)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        num_warmup = 0
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / num_warmup if s < 10 else 1.0)
        ''')
    sc("div_zero", "fraction", expect=1, code='''
        from fractions import Fraction
        micro, global_batch = 0, 256
        print("ratio", Fraction(global_batch, micro))
        ''')
    sc("div_zero", "neg_power", expect=1, code='''
        tokens_seen = 0.0
        print("tokens/s", tokens_seen ** -1)
        ''')
    sc("div_zero", "steps_per_epoch", expect=1, code='''
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--batch_size", type=int, default=64)
        p.add_argument("--num_samples", type=int, default=32)
        a = p.parse_args()
        print(a)
        steps_per_epoch = a.num_samples // a.batch_size
        total_steps = 10 * steps_per_epoch
        print("log every", total_steps // 10, "steps")
        for step in range(total_steps):
            pass
        print("epochs", total_steps / steps_per_epoch)
        ''')
    sc("div_zero", "torchrun_rank_shard", expect=1, cmd=lambda c: tr(c), code='''
        import os, torch.distributed as dist
        dist.init_process_group("gloo")
        r, w = dist.get_rank(), dist.get_world_size()
        n_items = 1
        per_rank = n_items // w
        print(f"rank {r}: {per_rank} items per rank", flush=True)
        print(f"rank {r}: shard fraction {n_items / per_rank}", flush=True)
        ''')
    sc("div_zero", "tqdm_throughput", expect=1, notes="noisy: tqdm", code='''
        import time
        from tqdm import tqdm
        t0 = time.time()
        for i in tqdm(range(30), desc="tokenizing"):
            pass
        elapsed = round(time.time() - t0)
        print(f"throughput {30 / elapsed:.1f} items/s")
        ''')
    sc("div_zero", "divmod_hf", expect=1, unbuffered=True, code='''
        import trainlib as T
        model, loss = T.train(steps=12, fmt="hf", footer=False)
        eval_steps = 0
        print(divmod(12, eval_steps))
        ''')

    # ------------------------------------------------------------ assertion
    sc("assertion", "bare_assert", expect=1, code='''
        import torch
        x = torch.randn(8, 3, 32, 32)
        assert x.shape[1] == 1
        ''')
    sc("assertion", "assert_msg_tp", expect=1, code='''
        world_size, tensor_parallel = 6, 4
        print(f"world_size={world_size} tp={tensor_parallel}")
        assert world_size % tensor_parallel == 0, f"world size {world_size} is not divisible by tensor parallel size {tensor_parallel}"
        ''')
    sc("assertion", "torch_assert_seq", expect=1, code='''
        import torch
        max_len = 512
        ids = torch.randint(0, 100, (2, 600))
        torch._assert(ids.shape[1] <= max_len, f"sequence length {ids.shape[1]} exceeds max_position_embeddings {max_len}")
        ''')
    sc("assertion", "numpy_allclose", expect=1, code='''
        import numpy as np
        ref = np.array([0.1, 0.2, 0.3])
        out = ref + np.array([0, 0.05, 0])
        print("checking parity with reference implementation")
        np.testing.assert_allclose(out, ref, rtol=1e-5)
        ''')
    sc("assertion", "dataloader_worker_assert", expect=1, code='''
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Tok(Dataset):
            def __len__(self):
                return 40
            def __getitem__(self, i):
                ids = list(range(i % 17))
                assert len(ids) > 0, f"empty sample at index {i}"
                return torch.tensor(ids[:4] + [0] * (4 - len(ids[:4])))
        if __name__ == "__main__":
            for b in DataLoader(Tok(), batch_size=8, num_workers=2):
                print(b.shape, flush=True)
        ''')
    sc("assertion", "after_training_hf", expect=1, unbuffered=True, notes="noisy: healthy prefix", code='''
        import trainlib as T
        model, loss = T.train(steps=60, fmt="hf", footer=False, save_every=30)
        n_params = sum(p.numel() for p in model.parameters())
        assert n_params == 1665, f"unexpected parameter count {n_params}"
        ''')
    sc("assertion", "torchrun_rank1_assert", expect=1, cmd=lambda c: tr(c), code='''
        import os, torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        t = torch.tensor([float(r)])
        dist.all_reduce(t)
        print(f"rank {r}: allreduce ok {t.item()}", flush=True)
        if r == 1:
            assert t.item() == 0.0, "ranks disagree on the data order seed"
        time.sleep(0.5)
        dist.barrier()
        ''')
    sc("assertion", "assert_in_loop_keras", expect=1, unbuffered=True, code='''
        import math, trainlib as T
        def check(step, loss, model):
            assert loss < 1.0 or step < 20, f"loss {loss:.3f} did not drop below 1.0 by step {step}"
        T.train(steps=80, lr=0.0005, fmt="keras", n=320, on_step=check)
        ''')
    sc("assertion", "pytest_style_check", expect=1, code='''
        import torch
        def test_grad_flow(model):
            for n, p in model.named_parameters():
                assert p.grad is not None, n
        m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
        m[1](torch.randn(2, 3)).sum().backward()
        test_grad_flow(m)
        ''')
    sc("assertion", "python_O_not_used_unittest", expect=1, code='''
        import unittest
        class Sanity(unittest.TestCase):
            def runTest(self):
                self.assertEqual(len([1, 2, 3]), 4, "vocab size mismatch")
        Sanity().runTest()
        ''')

    # ------------------------------------------------------------ file_not_found
    sc("file_not_found", "open_yaml_config", expect=1, code='''
        import yaml, sys
        path = "configs/llama_7b_lora.yaml"
        with open(path) as f:
            cfg = yaml.safe_load(f)
        ''')
    sc("file_not_found", "torch_load_ckpt", expect=1, code='''
        import torch
        model = torch.nn.Linear(8, 8)
        print("loading weights from outputs/run3/checkpoint-1500/pytorch_model.bin")
        sd = torch.load("outputs/run3/checkpoint-1500/pytorch_model.bin", map_location="cpu")
        ''')
    sc("file_not_found", "np_load_data", expect=1, code='''
        import numpy as np
        tokens = np.load("/data/shards/train_00017.npy", mmap_mode="r")
        ''')
    sc("file_not_found", "jsonl_data_dir", expect=1, code='''
        import json, os
        data_dir = os.environ.get("DATA_DIR", "/scratch/datasets/alpaca")
        rows = [json.loads(l) for l in open(os.path.join(data_dir, "train.jsonl"))]
        ''')
    sc("file_not_found", "python_missing_script", expect=2, cmd=[R.PY, "trian.py", "--epochs", "3"], code='print("x")',
       notes="interpreter cannot open the (mistyped) script path")
    sc("file_not_found", "listdir_images", expect=1, code='''
        import os
        root = "data/imagenet/train"
        classes = sorted(os.listdir(root))
        ''')
    sc("file_not_found", "bash_cat_set_e", expect=1, cmd=["bash", "job.sh"], code='print(1)', files={"job.sh": '''
        #!/bin/bash
        set -euo pipefail
        echo "[$(date +%H:%M:%S)] preparing data"
        NUM_LINES=$(cat /datasets/wiki/train.txt | wc -l)
        echo "lines: $NUM_LINES"
        /usr/bin/python3 train.py
        '''})
    sc("file_not_found", "pandas_read_csv", expect=1, code='''
        import pandas as pd
        df = pd.read_csv("data/labels_v2.csv")
        ''')
    sc("file_not_found", "healthy_then_save_dir", expect=1, unbuffered=True, notes="noisy: trained, then final save into a missing directory", code='''
        import torch, trainlib as T
        model, loss = T.train(steps=40, fmt="plain")
        torch.save(model.state_dict(), "/scratch/run-2231/final/model.pt")
        ''')
    sc("file_not_found", "torchrun_missing_data", expect=1, cmd=lambda c: tr(c), code='''
        import torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        print(f"[rank {r}] reading shard {r}", flush=True)
        with open(f"/mnt/fsx/tokens/shard_{r:05d}.bin", "rb") as f:
            data = f.read()
        ''')
    sc("file_not_found", "tokenizer_file", expect=1, code='''
        import json
        vocab_path = "./checkpoints/tokenizer/vocab.json"
        print(f"Loading vocabulary from {vocab_path}")
        vocab = json.load(open(vocab_path))
        ''')

    # ------------------------------------------------------------ permission
    def ro_dir(ctx, name="ro_out", mode=0o755):
        os.makedirs(ctx.path(name), exist_ok=True)
        os.chmod(ctx.path(name), mode)

    sc("permission", "write_ckpt_rootdir", expect=1, user=True, setup=lambda c: ro_dir(c, "ro_checkpoints"), code='''
        import torch, trainlib as T
        model, loss = T.train(steps=10, fmt="plain", footer=False)
        torch.save(model.state_dict(), "ro_checkpoints/step_10.pt")
        ''', notes="run as an unprivileged user; directory owned by root")
    sc("permission", "makedirs_cache", expect=1, user=True, setup=lambda c: ro_dir(c, "ro_shared"), code='''
        import os
        cache = os.path.join(os.getcwd(), "ro_shared", "hf_cache", "hub")
        os.makedirs(cache, exist_ok=True)
        ''')
    sc("permission", "read_root_only_config", expect=1, user=True,
       setup=lambda c: (c.write("ro_secret.yaml", "lr: 0.1\n"), os.chmod(c.path("ro_secret.yaml"), 0o600)), code='''
        import yaml
        cfg = yaml.safe_load(open("ro_secret.yaml"))
        ''')
    sc("permission", "bash_mkdir", expect=1, user=True, setup=lambda c: ro_dir(c, "ro_runs"), cmd=["bash", "job.sh"], code="print(1)",
       files={"job.sh": '''
        #!/bin/bash
        set -e
        OUT=ro_runs/exp42
        echo "output dir: $OUT"
        mkdir -p "$OUT"
        /usr/bin/python3 train.py --out "$OUT"
        '''})
    sc("permission", "log_file_tee", expect=1, user=True, setup=lambda c: ro_dir(c, "ro_logs"), code='''
        import logging
        logging.basicConfig(level=logging.INFO, handlers=[logging.FileHandler("ro_logs/train.log"), logging.StreamHandler()])
        logging.info("starting")
        ''')
    sc("permission", "chmod_eperm", expect=1, user=True, setup=lambda c: c.write("ro_data.bin", "x"), code='''
        import os
        print("fixing permissions on the dataset")
        os.chmod("ro_data.bin", 0o666)
        ''')
    sc("permission", "proc_sys_root", expect=1, user=True, code='''
        print("raising vm.max_map_count for the data loader")
        with open("/proc/sys/vm/max_map_count", "w") as f:
            f.write("1048576")
        ''')
    sc("permission", "noexec_script", expect=126, cmd=["bash", "-c", "./run_train.sh --epochs 3"], code="print(1)",
       files={"run_train.sh": "#!/bin/bash\necho training\n"}, notes="exec failure: script file lacks the execute bit")
    sc("permission", "healthy_then_save_hf", expect=1, user=True, unbuffered=True, setup=lambda c: ro_dir(c, "ro_output"),
       notes="noisy: healthy HF-style training, then the checkpoint save fails", code='''
        import os, torch, trainlib as T
        model, loss = T.train(steps=50, fmt="hf", footer=False)
        print("Saving model checkpoint to ro_output/checkpoint-50")
        os.makedirs("ro_output/checkpoint-50", exist_ok=True)
        torch.save(model.state_dict(), "ro_output/checkpoint-50/pytorch_model.bin")
        ''')
    sc("permission", "torchrun_rank_log", expect=1, user=True, setup=lambda c: ro_dir(c, "ro_tb"), cmd=lambda c: tr(c), code='''
        import torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        f = open(f"ro_tb/events.rank{r}", "w")
        ''')

    # ------------------------------------------------------------ missing_module
    sc("missing_module", "transformers", expect=1, code='''
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        ''')
    sc("missing_module", "tensorboard", expect=1, code='''
        import trainlib as T
        from torch.utils.tensorboard import SummaryWriter
        ''')
    sc("missing_module", "flash_attn_from", expect=1, code='''
        import torch, torch.nn as nn
        from flash_attn.flash_attn_interface import flash_attn_varlen_func
        ''')
    sc("missing_module", "ctypes_libcudart", expect=1, code='''
        import ctypes
        print("loading CUDA runtime")
        cudart = ctypes.CDLL("libcudart.so.12")
        ''')
    sc("missing_module", "py_m_missing", expect=1, cmd=[R.PY, "-m", "deepspeed.launcher.runner", "train.py"], code="print(1)")
    sc("missing_module", "pkg_metadata", expect=1, code='''
        from importlib.metadata import version
        print("accelerate", version("accelerate"))
        ''')
    sc("missing_module", "torchrun_import", expect=1, cmd=lambda c: tr(c), code='''
        import os
        import torch
        import apex
        ''')
    sc("missing_module", "command_not_found", expect=127, cmd=["bash", "job.sh"], code="print(1)",
       notes="exec failure: launcher binary not installed", files={"job.sh": '''
        #!/bin/bash
        echo "node: $(hostname) starting job"
        accelerate launch --num_processes 2 train.py
        '''})
    sc("missing_module", "after_prefix_lazy_import", expect=1, unbuffered=True, notes="noisy: lazy import fails after training", code='''
        import trainlib as T
        model, loss = T.train(steps=30, fmt="lightning", n=320)
        import wandb
        wandb.log({"final_loss": loss})
        ''')

    # ------------------------------------------------------------ config_error
    sc("config_error", "argparse_unrecognized", expect=2, cmd=[R.PY, "train.py", "--lr", "3e-4", "--learning_rate", "3e-4"], code='''
        import argparse
        p = argparse.ArgumentParser(prog="train.py")
        p.add_argument("--lr", type=float, default=1e-4)
        p.add_argument("--warmup_steps", type=int, default=0)
        args = p.parse_args()
        ''')
    sc("config_error", "argparse_choice", expect=2, cmd=[R.PY, "train.py", "--precision", "fp8"], code='''
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32")
        p.add_argument("--model", required=False, default="gpt2")
        print(p.parse_args())
        ''')
    sc("config_error", "argparse_required", expect=2, cmd=[R.PY, "finetune.py"], script="finetune.py", code='''
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--model_name_or_path", required=True)
        p.add_argument("--output_dir", required=True)
        args = p.parse_args()
        ''')
    sc("config_error", "torch_invalid_lr", expect=1, code='''
        import torch
        lr = float("-1e-4")
        model = torch.nn.Linear(8, 8)
        opt = torch.optim.AdamW(model.parameters(), lr=lr)
        ''')
    sc("config_error", "dataloader_batch0", expect=1, code='''
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        per_device = 64 // 128
        ds = TensorDataset(torch.randn(100, 4))
        dl = DataLoader(ds, batch_size=per_device)
        ''')
    sc("config_error", "dropout_range", expect=1, code='''
        import torch.nn as nn
        cfg = {"hidden_dropout": 1.5}
        layer = nn.Dropout(cfg["hidden_dropout"])
        ''')
    sc("config_error", "yaml_scanner", expect=1, setup=lambda c: c.write("config.yaml", '''
        model:
          name: llama
          hidden: 4096
        optim:
          lr: 3e-4
         betas: [0.9, 0.95]
        '''), code='''
        import yaml
        cfg = yaml.safe_load(open("config.yaml"))
        print(cfg)
        ''')
    sc("config_error", "env_rank_unset", expect=1, code='''
        import torch.distributed as dist
        print("initialising process group (env://)")
        dist.init_process_group(backend="gloo", init_method="env://")
        ''', notes="distributed script started without a launcher")
    sc("config_error", "valueerror_target_modules", expect=1, code='''
        import torch.nn as nn
        model = nn.ModuleDict({"q_proj": nn.Linear(8, 8), "k_proj": nn.Linear(8, 8), "v_proj": nn.Linear(8, 8)})
        target = {"query_key_value"}
        found = [n for n, _ in model.named_modules() if n in target]
        if not found:
            raise ValueError(f"Target modules {target} not found in the base model. Please check the target modules and try again.")
        ''', notes="the check is written in the job (mirrors PEFT's message); the exception is real")
    sc("config_error", "grad_accum_validation", expect=1, code='''
        from dataclasses import dataclass
        @dataclass
        class TrainingArguments:
            per_device_train_batch_size: int = 8
            gradient_accumulation_steps: int = 1
            fp16: bool = False
            bf16: bool = False
            def __post_init__(self):
                if self.fp16 and self.bf16:
                    raise ValueError("At most one of fp16 and bf16 can be True, but not both")
        args = TrainingArguments(fp16=True, bf16=True)
        ''')
    sc("config_error", "torch_bad_reduction", expect=1, code='''
        import torch, torch.nn as nn
        loss_fn = nn.CrossEntropyLoss(reduction="avg")
        print(loss_fn(torch.randn(4, 3), torch.tensor([0, 1, 2, 0])))
        ''')

    # ------------------------------------------------------------ data_error
    sc("data_error", "jsonl_decode", expect=1, setup=lambda c: c.write("train.jsonl",
       '{"text": "hello", "label": 1}\n{"text": "world", "label": 0}\n{"text": "broken, "label": 1}\n'), code='''
        import json
        rows = []
        with open("train.jsonl") as f:
            for line in f:
                rows.append(json.loads(line))
        print(len(rows), "rows")
        ''')
    sc("data_error", "json_extra_data", expect=1, setup=lambda c: c.write("data.json", '[{"q": 1}]\n[{"q": 2}]\n'), code='''
        import json
        data = json.load(open("data.json"))
        ''')
    sc("data_error", "pandas_tokenizing", expect=1, setup=lambda c: c.write("train.csv",
       "text,label\nthe cat,1\nthe dog,0\nhello, world,1\nfoo,0\n"), code='''
        import pandas as pd
        df = pd.read_csv("train.csv")
        print(df.head())
        ''')
    sc("data_error", "csv_field_limit", expect=1, setup=lambda c: c.write("corpus.tsv", "id\ttext\n1\t" + "x" * 200000 + "\n"), code='''
        import csv
        with open("corpus.tsv", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\\t"))
        ''')
    sc("data_error", "unicode_decode", expect=1, setup=lambda c: open(c.path("captions.txt"), "wb").write(b"a cat\nun caf\xe9\n\xff\xfe\n"), code='''
        with open("captions.txt", encoding="utf-8") as f:
            captions = [l.strip() for l in f]
        ''')
    sc("data_error", "gzip_bad", expect=1, setup=lambda c: c.write("shard-0000.jsonl.gz", "not really gzip\n"), code='''
        import gzip, json
        with gzip.open("shard-0000.jsonl.gz", "rt") as f:
            for line in f:
                print(json.loads(line))
        ''')
    sc("data_error", "npy_truncated", expect=1, setup=None, code='''
        import numpy as np
        np.save("tokens.npy", np.arange(100000, dtype=np.int32))
        raw = open("tokens.npy", "rb").read()
        open("tokens.npy", "wb").write(raw[:5000])
        print("loading token shard tokens.npy")
        arr = np.load("tokens.npy")
        ''', notes="the job first writes a shard, then a partial copy replaces it (as an interrupted copy would)")
    sc("data_error", "tarfile_read", expect=1, setup=lambda c: c.write("images-000.tar", "garbage" * 100), code='''
        import tarfile
        with tarfile.open("images-000.tar") as tf:
            names = tf.getnames()
        ''')
    sc("data_error", "dataloader_jsondecode_worker", expect=1, setup=lambda c: c.write("val.jsonl",
       "\n".join(['{"x": %d}' % i for i in range(30)] + ['{"x": 31,}'])), code='''
        import json, torch
        from torch.utils.data import Dataset, DataLoader
        class J(Dataset):
            def __init__(self):
                self.lines = open("val.jsonl").read().splitlines()
            def __len__(self):
                return len(self.lines)
            def __getitem__(self, i):
                return torch.tensor(json.loads(self.lines[i])["x"])
        if __name__ == "__main__":
            for b in DataLoader(J(), batch_size=8, num_workers=2):
                print("batch", b.tolist(), flush=True)
        ''')
    sc("data_error", "pickle_truncated", expect=1, code='''
        import pickle
        pickle.dump({"input_ids": list(range(10000))}, open("cache.pkl", "wb"))
        data = open("cache.pkl", "rb").read()
        open("cache.pkl", "wb").write(data[: len(data) // 2])
        print("loading preprocessed cache cache.pkl")
        ds = pickle.load(open("cache.pkl", "rb"))
        ''', notes="the job writes its cache, then a half copy replaces it")
    sc("data_error", "pandas_parquet_missing_engine", expect=1, setup=lambda c: c.write("train.parquet", "PAR1xxxx"), code='''
        import pandas as pd
        df = pd.read_parquet("train.parquet")
        ''', notes="no parquet engine installed: pandas ImportError on a data read (arguably missing_module)")
    sc("data_error", "healthy_then_bad_record", expect=1, unbuffered=True, notes="noisy: 45 healthy steps, then a malformed record", code='''
        import json, trainlib as T
        T.train(steps=45, fmt="plain2", footer=False)
        stream = ['{"text": "ok"}', '{"text": "ok2"}', '{"text": "unterminated']
        for i, line in enumerate(stream):
            rec = json.loads(line)
            print("record", i, rec["text"])
        ''')

    # ------------------------------------------------------------ runtime_error (plain RuntimeError)
    sc("runtime_error", "matmul_shapes", expect=1, code='''
        import torch, torch.nn as nn
        model = nn.Sequential(nn.Linear(20, 5))
        x = torch.randn(4, 10)
        y = model(x)
        ''')
    sc("runtime_error", "broadcast_size", expect=1, code='''
        import torch
        logits = torch.randn(8, 3)
        mask = torch.ones(8, 4)
        print((logits * mask).sum())
        ''')
    sc("runtime_error", "view_noncontig", expect=1, code='''
        import torch
        h = torch.randn(2, 16, 8).transpose(1, 2)
        h = h.view(2, -1)
        ''')
    sc("runtime_error", "backward_twice", expect=1, code='''
        import trainlib as T, torch
        model = T.make_model()
        x, y = T.make_data()
        loss = torch.nn.functional.mse_loss(model(x[:8]), y[:8])
        loss.backward()
        print("step 1 loss", loss.item())
        loss.backward()
        ''')
    sc("runtime_error", "inplace_autograd", expect=1, code='''
        import torch
        w = torch.randn(4, requires_grad=True)
        h = torch.sigmoid(w)
        h += 1
        h.sum().backward()
        ''')
    sc("runtime_error", "no_grad_fn", expect=1, code='''
        import torch
        model = torch.nn.Linear(4, 1)
        with torch.no_grad():
            loss = model(torch.randn(2, 4)).pow(2).mean()
        loss.backward()
        ''')
    sc("runtime_error", "nonscalar_backward", expect=1, code='''
        import torch
        model = torch.nn.Linear(4, 3)
        out = model(torch.randn(2, 4))
        loss = (out - 1) ** 2
        loss.backward()
        ''')
    sc("runtime_error", "collate_stack", expect=1, code='''
        import torch
        from torch.utils.data import DataLoader
        samples = [torch.randn(n) for n in (5, 5, 5, 7)]
        for b in DataLoader(samples, batch_size=4):
            print(b.shape)
        ''')
    sc("runtime_error", "plain_raise", expect=1, code='''
        import trainlib as T
        model, loss = T.train(steps=5, fmt="plain")
        raise RuntimeError("expected optimizer state to be initialised before calling step_closure()")
        ''')
    sc("runtime_error", "conv_input_dims", expect=1, code='''
        import torch
        conv = torch.nn.Conv2d(3, 8, 3)
        print(conv(torch.randn(3, 32)).shape)
        ''')
    sc("runtime_error", "torchrun_shape_rank0", expect=1, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        x = torch.randn(4, 16 if r == 0 else 16)
        w = torch.randn(32, 8)
        print(f"rank {r} forward", flush=True)
        y = x @ w
        ''')
    sc("runtime_error", "dict_changed", expect=1, unbuffered=True, notes="noisy: Lightning-style progress first", code='''
        import trainlib as T
        T.train(steps=32, fmt="lightning", n=256)
        metrics = {"loss": 0.1, "acc": 0.9}
        for k in metrics:
            metrics[k + "_avg"] = metrics[k]
        ''')

    # ------------------------------------------------------------ unknown (real, no decisive evidence)
    sc("unknown", "silent_exit1", expect=1, code='''
        import sys, trainlib as T
        T.train(steps=3, fmt="plain", footer=False)
        sys.exit(1)
        ''', notes="the job exits 1 after 3 steps without saying why")
    sc("unknown", "empty_exit3", expect=3, code='''
        import os
        os._exit(3)
        ''')
    sc("unknown", "bash_false", expect=1, cmd=["bash", "job.sh"], code="print(1)", files={"job.sh": '''
        #!/bin/bash
        set -e
        echo "== job start $(date -u +%FT%TZ) =="
        echo "host $(hostname)"
        test -n ""
        echo "== job end =="
        '''})
    sc("unknown", "error_word", expect=2, code='''
        import sys
        print("Error: training failed (see above)")
        sys.exit(2)
        ''')
    sc("unknown", "warnings_then_exit", expect=1, code='''
        import warnings, sys, torch
        warnings.warn("TypedStorage is deprecated", UserWarning)
        print("rank 0: setting up")
        sys.exit("setup did not complete")
        ''')
