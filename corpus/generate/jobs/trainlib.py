"""Tiny CPU training helper used by the corpus job scripts.

It trains a small MLP on generated data with real PyTorch and prints its
progress the way common frameworks do (plain prints, HF-Trainer dicts,
Keras fit lines, Lightning progress bars, Megatron iteration lines, Python
logging, tqdm).  Every number printed is the real value computed here.
"""
import math
import os
import sys
import time

import torch
import torch.nn as nn

torch.set_num_threads(1)


def make_data(n=512, d=16, classes=0, seed=0, noise=0.1, shuffle_labels=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, max(classes, 1), generator=g)
    y = x @ w + noise * torch.randn(n, max(classes, 1), generator=g)
    if classes:
        y = y.argmax(dim=1)
        if shuffle_labels:
            y = y[torch.randperm(n, generator=g)]
    return x, y


def make_model(d=16, hidden=32, out=1, seed=0, depth=2):
    torch.manual_seed(seed)
    layers, width = [], d
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    layers.append(nn.Linear(width, out))
    return nn.Sequential(*layers)


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += float(p.grad.detach().pow(2).sum())
    return math.sqrt(total)


class Printer:
    """Prints one training step the way a framework would."""

    def __init__(self, fmt, total_steps, steps_per_epoch, rank_prefix="", stream=None):
        self.fmt = fmt
        self.total = total_steps
        self.spe = max(1, steps_per_epoch)
        self.prefix = rank_prefix
        self.stream = stream or sys.stdout
        self.t0 = time.time()
        self.epochs = max(1, math.ceil(total_steps / self.spe))
        self._bar = None

    def out(self, s, end="\n"):
        self.stream.write(self.prefix + s + end)
        self.stream.flush()

    def header(self, n_examples, batch):
        f = self.fmt
        if f == "hf":
            self.out("***** Running training *****")
            self.out(f"  Num examples = {n_examples:,}")
            self.out(f"  Num Epochs = {self.epochs:,}")
            self.out(f"  Instantaneous batch size per device = {batch:,}")
            self.out(f"  Total train batch size (w. parallel, distributed & accumulation) = {batch:,}")
            self.out("  Gradient Accumulation steps = 1")
            self.out(f"  Total optimization steps = {self.total:,}")
        elif f == "lightning":
            self.out("GPU available: False, used: False")
            self.out("TPU available: False, using: 0 TPU cores")
            self.out("")
            self.out("  | Name  | Type       | Params")
            self.out("-------------------------------------")
            self.out("0 | model | Sequential | 1.6 K ")
            self.out("-------------------------------------")
        elif f == "megatron":
            self.out("> building train, validation, and test datasets ...")
            self.out(f" > datasets target sizes (minimum size):\n    train:      {self.total * batch}")
            self.out("training ...")
            self.out("[before the start of training step] datetime: " + time.strftime("%Y-%m-%d %H:%M:%S"))
        elif f == "logging":
            self.log("INFO", f"Starting training: {n_examples} examples, {self.total} steps, batch size {batch}")
        elif f == "tqdm":
            from tqdm import tqdm
            self._bar = tqdm(total=self.total, desc="train", file=sys.stderr, mininterval=0)

    def log(self, level, msg):
        ts = time.strftime("%Y-%m-%d %H:%M:%S")
        self.out(f"{ts},{int((time.time() % 1) * 1000):03d} - {level} - train - {msg}")

    def step(self, step, loss, gnorm, lr, step_time):
        f = self.fmt
        epoch = step / self.spe
        if f == "plain":
            self.out(f"step {step}/{self.total} loss {loss:.4f} lr {lr:.2e} ({step_time * 1000:.1f} ms/step)")
        elif f == "plain2":
            self.out(f"[{step:5d}] loss={loss:.5f} grad_norm={gnorm:.3f}")
        elif f == "hf":
            self.out(str({"loss": round(loss, 4), "grad_norm": gnorm, "learning_rate": lr, "epoch": round(epoch, 2)}))
        elif f == "keras":
            ep = (step - 1) // self.spe + 1
            pos = (step - 1) % self.spe + 1
            if pos == 1:
                self.out(f"Epoch {ep}/{self.epochs}")
            done = int(30 * pos / self.spe)
            bar = "=" * max(0, done - 1) + (">" if done < 30 else "=") + "." * (30 - done)
            ms = step_time * 1000
            end = "\n" if pos == self.spe else "\r"
            self.out(f"{pos}/{self.spe} [{bar}] - {math.ceil(ms * pos / 1000)}s {ms:.0f}ms/step - loss: {loss:.4f}", end=end)
        elif f == "lightning":
            ep = (step - 1) // self.spe
            pos = (step - 1) % self.spe + 1
            pct = int(100 * pos / self.spe)
            bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
            its = 1.0 / max(step_time, 1e-6)
            end = "\n" if pos == self.spe else "\r"
            self.out(f"Epoch {ep}: {pct:3d}%|{bar}| {pos}/{self.spe} [00:00<00:00, {its:.2f}it/s, loss={loss:.3g}, v_num=0]", end=end)
        elif f == "megatron":
            ls = "{:.6E}".format(loss)
            nan_flag = 1 if not math.isfinite(loss) else 0
            self.out(
                f" iteration {step:8d}/{self.total:8d} | consumed samples: {step * 32:12d} | "
                f"elapsed time per iteration (ms): {step_time * 1000:.1f} | learning rate: {lr:.3E} | "
                f"global batch size: {32:5d} | lm loss: {ls} | loss scale: 1.0 | grad norm: {gnorm:.3f} | "
                f"number of skipped iterations: {0:3d} | number of nan iterations: {nan_flag:3d} |"
            )
        elif f == "logging":
            self.log("INFO", f"epoch {epoch:.2f} step {step} loss {loss:.4f} lr {lr:.3g}")
        elif f == "tqdm":
            self._bar.set_postfix(loss=f"{loss:.4f}")
            self._bar.update(1)
        elif f == "ds":
            self.out(f"[Rank 0] step={step}, skipped=0, lr=[{lr}], mom=[(0.9, 0.999)]")
            self.out(f"steps: {step} loss: {loss:.4f} iter time (s): {step_time:.3f} samples/sec: {32 / max(step_time, 1e-6):.3f}")
        else:
            raise ValueError(f"unknown format {f}")

    def footer(self, steps, loss):
        rt = time.time() - self.t0
        f = self.fmt
        if f == "tqdm" and self._bar is not None:
            self._bar.close()
        if f == "hf":
            self.out("")
            self.out("")
            self.out("Training completed. Do not forget to share your model on huggingface.co/models =)")
            self.out("")
            self.out("")
            self.out(str({"train_runtime": round(rt, 4), "train_samples_per_second": round(steps * 32 / max(rt, 1e-6), 3),
                          "train_steps_per_second": round(steps / max(rt, 1e-6), 3), "train_loss": loss,
                          "epoch": round(steps / self.spe, 2)}))
        elif f == "lightning":
            self.out(f"`Trainer.fit` stopped: `max_steps={self.total}` reached.")
        elif f == "megatron":
            self.out("[after training is done] datetime: " + time.strftime("%Y-%m-%d %H:%M:%S"))
        elif f == "logging":
            self.log("INFO", f"Training finished after {steps} steps, final loss {loss:.4f}")
        elif f in ("plain", "plain2"):
            self.out(f"done: {steps} steps in {rt:.1f}s, final loss {loss:.4f}")


def train(steps=60, lr=0.05, fmt="plain", batch=32, n=512, d=16, classes=0, hidden=32, seed=0,
          opt="sgd", log_every=1, on_step=None, step_sleep=None, save_every=0, save_dir="checkpoints",
          clip=None, model=None, data=None, start_step=0, rank_prefix="", header=True, footer=True,
          loss_fn=None, shuffle_labels=False, frozen=False, lr_schedule=None, printer=None, quiet_save=False, opt_kwargs=None):
    x, y = data if data is not None else make_data(n, d, classes, seed, shuffle_labels=shuffle_labels)
    out = classes if classes else 1
    model = model if model is not None else make_model(d, hidden, out, seed)
    if frozen:
        for p in model.parameters():
            p.requires_grad_(False)
        params = [torch.zeros(1, requires_grad=True)]
    else:
        params = list(model.parameters())
    ok = opt_kwargs or {}
    optim = torch.optim.Adam(params, lr=lr, **ok) if opt == "adam" else torch.optim.SGD(params, lr=lr, **ok)
    if loss_fn is None:
        loss_fn = nn.CrossEntropyLoss() if classes else nn.MSELoss()
    spe = max(1, n // batch)
    pr = printer or Printer(fmt, steps, spe, rank_prefix)
    if header:
        pr.header(n, batch)
    loss_v = float("nan")
    for step in range(start_step + 1, steps + 1):
        t0 = time.time()
        i = ((step - 1) % spe) * batch
        xb, yb = x[i:i + batch], y[i:i + batch]
        cur_lr = lr_schedule(step) if lr_schedule else lr
        for gparam in optim.param_groups:
            gparam["lr"] = cur_lr
        optim.zero_grad()
        pred = model(xb)
        loss = loss_fn(pred, yb) + (params[0].sum() * 0 if frozen else 0)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        gn = grad_norm(model)
        optim.step()
        if step_sleep:
            time.sleep(step_sleep(step))
        loss_v = float(loss.detach())
        if on_step:
            on_step(step, loss_v, model)
        if step % log_every == 0 or step == steps:
            pr.step(step, loss_v, gn, cur_lr, time.time() - t0)
        if save_every and step % save_every == 0:
            os.makedirs(save_dir, exist_ok=True)
            path = os.path.join(save_dir, f"checkpoint-{step}.pt")
            torch.save({"step": step, "model": model.state_dict(), "optim": optim.state_dict()}, path)
            if not quiet_save:
                if fmt == "hf":
                    pr.out(f"Saving model checkpoint to {save_dir}/checkpoint-{step}")
                elif fmt == "megatron":
                    pr.out(f"saving checkpoint at iteration {step:7d} to {save_dir}")
                    pr.out(f"  successfully saved checkpoint at iteration {step:7d} to {save_dir}")
                else:
                    pr.out(f"saved checkpoint {path}")
    if footer:
        pr.footer(steps, loss_v)
    return model, loss_v
