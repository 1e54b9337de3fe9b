"""Real scenarios: a pretrained model, tokenizer or weights file cannot be
fetched or loaded at start-up.

Class: asset_error.

This machine has no route to the internet (only Debian's archive), so
torchvision/torch.hub downloads from download.pytorch.org and GitHub fail for
real.  The hub-style failures (401 gated, 403 not authorised, 404 repository
or revision, 5xx, a dropped or truncated download) come from a real local
HTTP server, `jobs/modelhub.py`, started by the scenario's setup on
127.0.0.1:<port> outside the captured job and stopped by its post hook.  The
jobs fetch with requests, urllib, torch.hub, curl or wget, through a small
`pretrained.py` helper (HUB_CLIENT below) that builds hub URLs
(`<endpoint>/<org>/<name>/resolve/<revision>/<file>`), caches files under
`~/.cache/mlhub`, honours an offline flag and raises on HTTP errors the way
hub clients do.
"""
import hashlib
import json
import os
import shutil
import subprocess
import textwrap
import threading

_SERVERS = {}
_LOCK = threading.Lock()

# The job's own hub helper (written into the job dir as pretrained.py).
HUB_CLIENT = '''
"""Fetch pretrained configs/weights/tokenizers from the model hub (HF-style layout)."""
import json
import logging
import os
import time

import requests

ENDPOINT = os.environ.get("MLHUB_ENDPOINT", "https://hub.ml.internal")
CACHE = os.path.expanduser(os.environ.get("MLHUB_CACHE", "~/.cache/mlhub"))
log = logging.getLogger("pretrained")


class HubError(OSError):
    pass


def is_offline():
    return os.environ.get("MLHUB_OFFLINE", "0").upper() in ("1", "ON", "YES", "TRUE")


def get_token():
    tok = os.environ.get("MLHUB_TOKEN")
    if tok:
        return tok
    p = os.path.join(CACHE, "token")
    return open(p).read().strip() if os.path.exists(p) else None


def hub_url(repo_id, filename, revision="main"):
    return f"{ENDPOINT}/{repo_id}/resolve/{revision}/{filename}"


def cached_path(repo_id, filename, revision="main"):
    return os.path.join(CACHE, "models--" + repo_id.replace("/", "--"), "snapshots", revision, filename)


def fetch_pretrained(repo_id, filename, revision="main", token=None, retries=0, wrap_errors=True):
    """Return a local path to `filename` of `repo_id`, downloading it if needed."""
    dst = cached_path(repo_id, filename, revision)
    if os.path.exists(dst):
        log.info("using cached %s", dst)
        return dst
    if is_offline():
        raise HubError(
            f"Cannot find the requested file {filename} of {repo_id} (revision {revision}) in the local "
            f"cache at {os.path.dirname(dst)}, and outgoing traffic has been disabled (MLHUB_OFFLINE=1). "
            "To enable downloads, unset MLHUB_OFFLINE or pre-download the model on a node with network access.")
    token = token or get_token()
    headers = {"User-Agent": "mlhub-client/0.3.1; python/3.11"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    url = hub_url(repo_id, filename, revision)
    delay = 0.5
    for attempt in range(retries + 1):
        r = requests.get(url, headers=headers, stream=True, timeout=30)
        if r.status_code >= 500 and attempt < retries:
            log.warning("GET %s -> %d %s, retrying in %.1fs [%d/%d]", url, r.status_code, r.reason,
                        delay, attempt + 1, retries)
            time.sleep(delay)
            delay *= 2
            continue
        break
    if not wrap_errors:
        r.raise_for_status()
    try:
        r.raise_for_status()
    except requests.HTTPError as e:
        code, msg = r.headers.get("X-Error-Code"), r.headers.get("X-Error-Message", "")
        if code == "GatedRepo":
            raise HubError(f"You are trying to access a gated repo.\\nMake sure to have access to it at "
                           f"{ENDPOINT}/{repo_id}.\\n{e}\\n\\nCannot access gated repo for url {url}.\\n{msg}") from e
        if code == "RepoNotFound":
            raise HubError(f"{repo_id} is not a local folder and is not a valid model identifier listed on "
                           f"'{ENDPOINT}/models'\\nIf this is a private repository, make sure to pass a token "
                           "having permission to this repo with `token=` or log in with `mlhub login`.") from e
        if code == "RevisionNotFound":
            raise HubError(f"{revision} is not a valid git identifier (branch name, tag name or commit id) "
                           f"that exists for this model name. Check the model page at '{ENDPOINT}/{repo_id}' "
                           "for available revisions.") from e
        raise
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    tmp = dst + ".incomplete"
    total = int(r.headers.get("Content-Length", 0))
    log.info("downloading %s (%.1f MB)", url, total / 2**20)
    r.raw.enforce_content_length = True  # fail loudly on a truncated transfer
    with open(tmp, "wb") as f:
        for chunk in r.iter_content(1 << 16):
            f.write(chunk)
    os.replace(tmp, dst)
    return dst


def load_config(repo_id, revision="main", **kw):
    with open(fetch_pretrained(repo_id, "config.json", revision, **kw)) as f:
        return json.load(f)


class WordPieceTokenizer:
    def __init__(self, vocab_file):
        self.vocab = {w.rstrip("\\n"): i for i, w in enumerate(open(vocab_file, encoding="utf-8"))}

    def __len__(self):
        return len(self.vocab)

    def encode(self, text):
        return [self.vocab.get(w, 1) for w in text.lower().split()]


def load_tokenizer(name_or_path, revision="main"):
    """A local directory, or a hub repo id resolved through the cache/hub."""
    if os.path.isdir(name_or_path):
        for fname in ("tokenizer.json", "vocab.txt"):
            p = os.path.join(name_or_path, fname)
            if os.path.isfile(p):
                return WordPieceTokenizer(p)
    else:
        try:
            return WordPieceTokenizer(fetch_pretrained(name_or_path, "vocab.txt", revision))
        except OSError:
            pass
    raise OSError(
        f"Can't load tokenizer for '{name_or_path}'. If you were trying to load it from '{ENDPOINT}', make sure "
        f"you don't have a local directory with the same name. Otherwise, make sure '{name_or_path}' is the "
        "correct path to a directory containing all relevant files for a WordPieceTokenizer tokenizer.")
'''

PRELUDE = '''
import logging, os, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("train")
'''


def pre(code):
    """The logging prelude of a job script, then the (dedented) job code."""
    return PRELUDE.lstrip("\n") + textwrap.dedent(code).lstrip("\n")


def _save_weights(path, out=512, inp=512):
    """A real torch checkpoint (state dict of a Linear + LayerNorm head) for the server to serve."""
    subprocess.run(["/usr/bin/python3", "-c",
                    "import sys, torch; torch.manual_seed(0); "
                    f"m = torch.nn.Sequential(torch.nn.Linear({inp}, {out}), torch.nn.LayerNorm({out})); "
                    "torch.save(m.state_dict(), sys.argv[1])", path], check=True)


def hub(repos=None, status=None, truncate=None, drop_after=None, plain=None):
    """Setup: write the served files and config, start jobs/modelhub.py on ctx.port.

    repos: {"org/name": {"gated": bool, "tokens": [...], "revisions": [...], "files": [names]}}
    plain: names served under /models/ (a plain file server).
    Files named *.pt/*.pth/*.bin are real torch checkpoints; config.json and
    vocab.txt get small real contents.
    """
    def setup(ctx):
        root = ctx.dir.rstrip("/") + ".hub"
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        cfg = {"root": root, "repos": {}}

        def make(name):
            p = os.path.join(root, name)
            if os.path.exists(p):
                return name
            if name.endswith((".pt", ".pth", ".bin")):
                _save_weights(p)
            elif name == "config.json":
                with open(p, "w") as f:
                    json.dump({"architectures": ["ViTForImageClassification"], "hidden_size": 512,
                               "num_hidden_layers": 8, "num_attention_heads": 8, "image_size": 224,
                               "patch_size": 16}, f, indent=2)
            elif name == "vocab.txt":
                with open(p, "w") as f:
                    f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] +
                                      [f"tok{i}" for i in range(995)]) + "\n")
            else:
                with open(p, "w") as f:
                    f.write("{}\n")
            return name

        for rid, spec in (repos or {}).items():
            spec = dict(spec)
            spec["files"] = {n: make(n) for n in spec.get("files", [])}
            cfg["repos"][rid] = spec
        ctx.served = {}
        for n in plain or []:
            make(n)
            h = hashlib.sha256(open(os.path.join(root, n), "rb").read()).hexdigest()
            ctx.served[n] = h
        for k, v in (("status", status), ("truncate", truncate), ("drop_after", drop_after)):
            if v is not None:
                cfg[k] = v
        with open(os.path.join(root, "hub.json"), "w") as f:
            json.dump(cfg, f)
        p = subprocess.Popen(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "jobs", "modelhub.py"),
                              "--port", str(ctx.port), "--config", os.path.join(root, "hub.json"),
                              "--lifetime", "300"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        line = p.stdout.readline()
        if line.strip() != b"ready":
            p.kill()
            raise RuntimeError(f"modelhub did not start on port {ctx.port}")
        with _LOCK:
            _SERVERS[ctx.id] = (p, root)
    return setup


def hub_stop(out, rc, ctx):
    with _LOCK:
        p, root = _SERVERS.pop(ctx.id, (None, None))
    if p is not None:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if root:
        shutil.rmtree(root, ignore_errors=True)
    return out


def register(R):
    sc, PY = R.sc, R.PY
    tr = R.torchrun
    H = {"pretrained.py": HUB_CLIENT}
    EP = {"MLHUB_ENDPOINT": "http://127.0.0.1:{PORT}"}

    # ---------------------------------------------- torchvision / torch.hub with no network
    sc("asset_error", "tv_resnet18_no_network", expect=1, code='''
        import torch, torchvision
        import trainlib as T
        torch.manual_seed(0)
        print("config: arch=resnet18 pretrained=IMAGENET1K_V1 num_classes=10 batch_size=64 lr=0.01")
        print("building dataset: 5000 train / 1000 val images (cached tensors)")
        print("loading pretrained backbone resnet18")
        model = torchvision.models.resnet18(weights="IMAGENET1K_V1")
        model.fc = torch.nn.Linear(model.fc.in_features, 10)
        ''', notes="torchvision pretrained weights from download.pytorch.org on a node without internet: "
                   "urllib URLError (name resolution); default ~/.cache/torch cache empty")
    sc("asset_error", "tv_torch_home_cache_miss", expect=1, unbuffered=True,
       env={"TORCH_HOME": "{DIR}/shared/torch_cache"},
       setup=lambda c: (os.makedirs(c.path("shared", "torch_cache", "hub", "checkpoints")),
                        _save_weights(c.path("shared", "torch_cache", "hub", "checkpoints",
                                             "linear_probe-0a1b2c3d.pth"))),
       code=pre('''
        import torch, torchvision
        from torchvision.models import get_model, get_model_weights
        arch = "convnext_tiny"
        cache = os.path.join(torch.hub.get_dir(), "checkpoints")
        log.info("TORCH_HOME=%s; cached checkpoints: %s", os.environ["TORCH_HOME"], sorted(os.listdir(cache)))
        weights = get_model_weights(arch).DEFAULT
        log.info("loading %s with %s weights (%s)", arch, weights, weights.url.rsplit("/", 1)[-1])
        model = get_model(arch, weights=weights)
        '''), notes="TORCH_HOME points at a shared cache that lacks the requested checkpoint; the fallback "
                   "download fails without network (URLError)")
    sc("asset_error", "torch_hub_load_github", expect=1, code='''
        import torch
        print("Global seed set to 1234")
        print("model: torch.hub pytorch/vision:v0.14.1 resnet50 (IMAGENET1K_V2), freeze_backbone=True")
        backbone = torch.hub.load("pytorch/vision:v0.14.1", "resnet50", weights="IMAGENET1K_V2", trust_repo=True)
        for p in backbone.parameters():
            p.requires_grad = False
        ''', notes="torch.hub.load of a GitHub repo offline: getaddrinfo fails while fetching the repo archive")
    sc("asset_error", "state_dict_url_refused", expect=1, unbuffered=True,
       env={"MODEL_REGISTRY": "http://127.0.0.1:{PORT}"}, code=pre('''
        import torch, trainlib as T
        url = os.environ["MODEL_REGISTRY"] + "/models/mlp_pretrain_e40-9c2f1e77.pth"
        model = T.make_model(hidden=32)
        log.info("initialising from %s", url)
        sd = torch.hub.load_state_dict_from_url(url, model_dir="./pretrained", map_location="cpu", check_hash=True)
        model.load_state_dict(sd)
        '''), notes="the model registry host refuses the connection (nothing listens): URLError "
                   "Connection refused from torch.hub.load_state_dict_from_url")

    # ---------------------------------------------- local hub: HTTP errors
    sc("asset_error", "gated_401_no_token", expect=1, files=H, env=EP, unbuffered=True,
       setup=hub(repos={"meta-llama/Llama-2-7b-hf": {"gated": True, "tokens": ["mlh_3f9a1c"],
                                                     "files": ["config.json", "model.pt"]}}),
       post=hub_stop, code=pre('''
        import trainlib as T
        from pretrained import load_config, fetch_pretrained
        log.info("Training/evaluation parameters: model=meta-llama/Llama-2-7b-hf lr=2e-05 epochs=3 bf16=False")
        log.info("loading config for meta-llama/Llama-2-7b-hf")
        cfg = load_config("meta-llama/Llama-2-7b-hf")
        '''), notes="local hub answers 401 for a gated repo (no token in the job's environment); the job's "
                   "helper raises OSError from requests' HTTPError")
    sc("asset_error", "gated_403_token_urllib", expect=1, env=dict(EP, MLHUB_TOKEN="mlh_7d20e4b19a"),
       setup=hub(repos={"acme-research/vit-l16-jft": {"gated": True, "tokens": ["mlh_3f9a1c"],
                                                       "files": ["config.json", "model.pt"]}}),
       post=hub_stop, code='''
        import os, urllib.request, torch
        endpoint, repo = os.environ["MLHUB_ENDPOINT"], "acme-research/vit-l16-jft"
        url = f"{endpoint}/{repo}/resolve/main/model.pt"
        dst = os.path.expanduser("~/.cache/vit/model.pt")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        print(f"rank 0: fetching {repo} weights -> {dst}")
        req = urllib.request.Request(url, headers={"Authorization": "Bearer " + os.environ["MLHUB_TOKEN"],
                                                   "User-Agent": "train.py"})
        with urllib.request.urlopen(req) as r, open(dst, "wb") as f:
            f.write(r.read())
        sd = torch.load(dst, map_location="cpu")
        ''', notes="a token is set but not authorised for the gated repo: urllib HTTPError 403 Forbidden")
    sc("asset_error", "revision_404_requests", expect=1, files=H, env=EP,
       setup=hub(repos={"acme-research/vit-small-patch16": {"revisions": ["main", "v1.0"],
                                                             "files": ["config.json", "model.pt"]}}),
       post=hub_stop, code='''
        import argparse
        import pretrained
        ap = argparse.ArgumentParser()
        ap.add_argument("--model", default="acme-research/vit-small-patch16")
        ap.add_argument("--revision", default="v2.0")
        a = ap.parse_args()
        print(f"Namespace(model={a.model!r}, revision={a.revision!r}, epochs=10, batch_size=128)")
        print(f"resolving {a.model}@{a.revision}")
        path = pretrained.fetch_pretrained(a.model, "config.json", a.revision, wrap_errors=False)
        ''', notes="a revision (tag) that does not exist on the hub: requests HTTPError 404 from "
                   "raise_for_status(), not wrapped")
    sc("asset_error", "repo_404_torchrun", expect=1, files=H, env=dict(EP, MLHUB_TOKEN="mlh_3f9a1c"),
       cmd=lambda c: [a if not a.startswith("--master_port=") else f"--master_port={c.port + 1}" for a in tr(c)],
       setup=hub(repos={"acme-research/bert-base-uncased-mlm": {"files": ["config.json", "model.pt"]}}),
       post=hub_stop, code='''
        import os, torch, torch.distributed as dist
        import pretrained
        dist.init_process_group("gloo")
        r = dist.get_rank()
        name = "acme-research/bert-base-uncased-mlm-v2"
        print(f"[rank{r}] world_size={dist.get_world_size()} loading {name}", flush=True)
        cfg = pretrained.load_config(name)
        ''', notes="torchrun, 2 ranks: a wrong repository name (404 RepoNotFound) on every rank; "
                   "ChildFailedError summary (the rendezvous uses port+1: the hub holds the scenario's port)")
    sc("asset_error", "hub_503_retries", expect=1, files=H, env=EP, unbuffered=True,
       setup=hub(status=503), post=hub_stop, code=pre('''
        import pretrained
        log.info("loading pretrained encoder acme-research/convnext-base-384 (revision main)")
        path = pretrained.fetch_pretrained("acme-research/convnext-base-384", "model.pt", retries=3)
        '''), notes="the hub answers 503 Service Unavailable; three retries then requests HTTPError")

    # ---------------------------------------------- broken downloads
    sc("asset_error", "download_dropped_midway", expect=1, files=H, env=EP, unbuffered=True,
       setup=hub(repos={"acme-research/resnet-152-in22k": {"files": ["config.json", "model.pt"]}},
                 drop_after=300000),
       post=hub_stop, code=pre('''
        import torch, pretrained
        repo = "acme-research/resnet-152-in22k"
        log.info("fetching %s", repo)
        weights = pretrained.fetch_pretrained(repo, "model.pt")
        sd = torch.load(weights, map_location="cpu")
        '''), notes="the hub closes the connection mid-download (Content-Length not reached): requests "
                   "ChunkedEncodingError / urllib3 IncompleteRead")
    sc("asset_error", "hash_mismatch_truncated", expect=1,
       setup=lambda c: (hub(plain=["encoder.pth"], truncate=200000)(c), _hash_name(c)),
       post=hub_stop, code='''
        import json, torch
        cfg = json.load(open("model_config.json"))
        print(f"model_config: {cfg}")
        print("loading pretrained encoder weights")
        sd = torch.hub.load_state_dict_from_url(cfg["pretrained_url"], model_dir="./weights", check_hash=True,
                                                map_location="cpu", progress=True)
        ''', notes="the served file is truncated; torch.hub's sha256 prefix check raises RuntimeError "
                   "'invalid hash value' (the class is asset_error, not runtime_error)")

    # ---------------------------------------------- offline mode / cache / tokenizer
    sc("asset_error", "offline_mode_cache_miss", expect=1, files=H,
       env={"MLHUB_OFFLINE": "1", "MLHUB_CACHE": "{DIR}/hf_cache"},
       setup=lambda c: os.makedirs(c.path("hf_cache", "models--acme-research--gpt2-medium-code", "snapshots",
                                          "main")),
       unbuffered=True, code=pre('''
        import pretrained
        log.info("MLHUB_OFFLINE=%s, cache=%s", os.environ["MLHUB_OFFLINE"], pretrained.CACHE)
        log.info("loading acme-research/gpt2-medium-code")
        cfg = pretrained.load_config("acme-research/gpt2-medium-code")
        '''), notes="offline flag set and the file is not in the cache: the job's helper refuses to "
                   "download (OSError)")
    sc("asset_error", "tokenizer_missing_local_dir", expect=1, files=H, unbuffered=True,
       setup=lambda c: (os.makedirs(c.path("pretrained", "bert-mini-uncased")),
                        _save_weights(c.path("pretrained", "bert-mini-uncased", "model.pt")),
                        open(c.path("pretrained", "bert-mini-uncased", "config.json"), "w").write(
                            '{"hidden_size": 256, "num_hidden_layers": 4, "vocab_size": 30522}\n')),
       code=pre('''
        import json, torch, pretrained
        path = "./pretrained/bert-mini-uncased"
        log.info("model dir %s: %s", path, sorted(os.listdir(path)))
        cfg = json.load(open(os.path.join(path, "config.json")))
        sd = torch.load(os.path.join(path, "model.pt"), map_location="cpu")
        log.info("loaded %d tensors", len(sd))
        tok = pretrained.load_tokenizer(path)
        '''), notes="an exported model directory without vocab.txt/tokenizer.json: OSError Can't load tokenizer")
    sc("asset_error", "tokenizer_offline_hub_id", expect=1, files=H,
       env={"MLHUB_OFFLINE": "1", "MLHUB_CACHE": "{DIR}/.cache/mlhub"},
       code='''
        import pretrained
        from tqdm import tqdm
        texts = [f"sample {i}" for i in range(2000)]
        print(f"loaded {len(texts)} raw texts")
        tok = pretrained.load_tokenizer("acme-research/wordpiece-32k")
        ids = [tok.encode(t) for t in tqdm(texts)]
        ''', notes="tokenizer by hub id with the offline flag and an empty cache: OSError Can't load tokenizer")

    # ---------------------------------------------- shell fetch steps
    sc("asset_error", "curl_401_job_sh", expect=22, cmd=["bash", "job.sh"], code="print('training')",
       env=EP, setup=hub(repos={"acme-research/llama-7b-sft": {"gated": True, "tokens": ["mlh_3f9a1c"],
                                                              "files": ["model.pt"]}}),
       post=hub_stop, files={"job.sh": '''
        #!/bin/bash
        set -euo pipefail
        MODEL=acme-research/llama-7b-sft
        echo "[$(date +%H:%M:%S)] job start on $(hostname)"
        echo "[$(date +%H:%M:%S)] fetching $MODEL weights"
        mkdir -p weights
        curl -fsSL ${MLHUB_TOKEN:+-H "Authorization: Bearer $MLHUB_TOKEN"} \\
            -o weights/model.pt "$MLHUB_ENDPOINT/$MODEL/resolve/main/model.pt"
        /usr/bin/python3 train.py --init weights/model.pt
        '''}, notes="curl -f in a set -e job script: the gated repo answers 401 (no token); exit 22 is curl's")
    sc("asset_error", "wget_404_job_sh", expect=8, cmd=["bash", "job.sh"], code="print('training')",
       env=EP, setup=hub(repos={"acme-research/whisper-small-ft": {"files": ["config.json", "model.pt"]}}),
       post=hub_stop, files={"job.sh": '''
        #!/bin/bash
        set -e
        REPO=acme-research/whisper-small-ft
        REV=${REV:-ckpt-4000}
        echo "downloading $REPO@$REV"
        for f in config.json model.pt; do
            wget -nv -O "ckpt/$f" "$MLHUB_ENDPOINT/$REPO/resolve/$REV/$f" || { rc=$?; echo "download of $f failed (wget exit $rc)"; exit $rc; }
        done
        /usr/bin/python3 train.py
        ''', "ckpt/.keep": ""}, notes="wget of a revision that does not exist (404); the job script exits "
                                     "with wget's status 8 (server error response)")


def _hash_name(ctx):
    """Name the served file by its real sha256 prefix, as torch.hub expects, and write the job config."""
    h = ctx.served["encoder.pth"]
    root = ctx.dir.rstrip("/") + ".hub"
    name = f"encoder_vitb16-{h[:8]}.pth"
    os.rename(os.path.join(root, "encoder.pth"), os.path.join(root, name))
    with open(ctx.path("model_config.json"), "w") as f:
        json.dump({"arch": "vit_b_16", "num_classes": 100,
                   "pretrained_url": f"http://127.0.0.1:{ctx.port}/models/{name}"}, f)
