"""Real scenarios: native crashes, signals, memory, loader/exec failures, hangs.

Classes: segfault, ram_oom, oom_killer, signal_kill, env_mismatch (native
and CPU-torch ones), missing_module (native loader), hang.
"""
import os
import re
import shutil
import subprocess
import threading

_OOM_LOCK = threading.Lock()
CG = "/sys/fs/cgroup/memory"

NULL_C = r'''
#include <stdio.h>
#include <stdlib.h>
struct batch { int n; float *data; };
static float sum(struct batch *b) { float s = 0; for (int i = 0; i < b->n; i++) s += b->data[i]; return s; }
int main(void) {
    fprintf(stderr, "loader: reading batch table\n");
    struct batch *b = NULL;
    if (getenv("BATCH_TABLE")) b = malloc(sizeof *b);
    fprintf(stderr, "loader: sum=%f\n", sum(b));
    return 0;
}
'''

SEGV_LIB_C = r'''
#include <string.h>
void fused_adam_step(float *params, const float *grads, int n, float lr) {
    for (int i = 0; i < n; i++) params[i] -= lr * grads[i];
}
'''

BADALLOC_CPP = r'''
#include <iostream>
#include <vector>
int main() {
    std::cerr << "building vocabulary index" << std::endl;
    std::vector<std::vector<double>> shards;
    for (int i = 0; i < 1000; i++) {
        shards.emplace_back(size_t(1) << 27);  // 1 GiB each
        std::cerr << "allocated shard " << i << std::endl;
    }
    std::cout << shards.size() << std::endl;
}
'''

THROW_CPP = r'''
#include <iostream>
#include <stdexcept>
int main() {
    std::cout << "[io] opening record file" << std::endl;
    throw std::runtime_error("record file header checksum mismatch (expected 0x5a17, got 0x0000)");
}
'''

ABORT_C = r'''
#include <assert.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int workers = argc - 1;
    printf("spawning %d workers\n", workers);
    fflush(stdout);
    assert(workers > 0);
    return 0;
}
'''

SIGBUS_C = r'''
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void) {
    int fd = open("shard.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
    ftruncate(fd, 1 << 20);
    unsigned char *p = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, 0);
    fprintf(stderr, "mapped shard.bin (1 MiB), first byte %d\n", p[0]);
    ftruncate(fd, 4096);  /* another process shrinks the file */
    fprintf(stderr, "reading offset 65536\n");
    fprintf(stderr, "byte %d\n", p[65536]);
    return 0;
}
'''

EXT_C = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
extern int %(sym)s(int);
static PyObject *run(PyObject *self, PyObject *args) { return PyLong_FromLong(%(sym)s(3)); }
static PyMethodDef M[] = {{"run", run, METH_NOARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "%(mod)s", NULL, -1, M};
PyMODINIT_FUNC PyInit_%(mod)s(void) { if (getenv("EXT_DEBUG")) puts("init"); return PyModule_Create(&mod); }
'''


def build_ext(ctx, mod, libname, sym, lib_has_sym=True, remove_lib=False):
    """Build a Python C extension `mod` linked against lib<libname>.so.

    Afterwards the library is rebuilt without `sym` (undefined symbol) or
    removed (cannot open shared object file), as a broken environment would.
    """
    libdir = ctx.path("lib")
    os.makedirs(libdir, exist_ok=True)
    soname = f"lib{libname}.so"
    ctx.write("libsrc.c", f"int {sym}(int x) {{ return x + 1; }}\nint other_{sym}(int x) {{ return x; }}\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(libdir, soname), f"-Wl,-soname,{soname}",
                    ctx.path("libsrc.c")], check=True)
    ctx.write(f"{mod}.c", EXT_C % {"sym": sym, "mod": mod})
    subprocess.run(["gcc", "-shared", "-fPIC", "-I/usr/include/python3.11", "-o",
                    ctx.path(f"{mod}.cpython-311-x86_64-linux-gnu.so"), ctx.path(f"{mod}.c"),
                    f"-L{libdir}", f"-l{libname}", f"-Wl,-rpath,{libdir}"], check=True)
    if remove_lib:
        os.remove(os.path.join(libdir, soname))
    elif not lib_has_sym:
        ctx.write("libsrc2.c", f"int other_{sym}(int x) {{ return x; }}\n")
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(libdir, soname), f"-Wl,-soname,{soname}",
                        ctx.path("libsrc2.c")], check=True)


def bump_glibc(path, old=b"GLIBC_2.34", new=b"GLIBC_2.99"):
    """Raise a binary's required glibc version, as if built on a newer distro."""
    data = open(path, "rb").read()
    assert old in data, (path, old)
    open(path, "wb").write(data.replace(old, new))


def cgroup_setup(ctx, limit_mb):
    name = "gac_" + os.path.basename(ctx.dir)
    p = os.path.join(CG, name)
    _OOM_LOCK.acquire()
    if os.path.isdir(p):
        os.rmdir(p)
    os.mkdir(p)
    with open(os.path.join(p, "memory.limit_in_bytes"), "w") as f:
        f.write(str(limit_mb * 1024 * 1024))
    ctx.cgroup = p
    ctx.dmesg_before = len(_dmesg())


def _dmesg():
    r = subprocess.run(["dmesg"], capture_output=True, text=True)
    return r.stdout.splitlines()


def cgroup_post(mode):
    """Release the cgroup; optionally append the kernel's real lines for the kill.

    mode: None (job output only), "summary" (the oom-kill and Killed process
    lines), "full" (the whole kernel report from 'invoked oom-killer' on).
    """
    def post(out, rc, ctx):
        try:
            lines = _dmesg()[ctx.dmesg_before:]
            try:
                with open(os.path.join(ctx.cgroup, "cgroup.procs")) as f:
                    for pid in f.read().split():
                        os.kill(int(pid), 9)
            except Exception:
                pass
            for _ in range(50):
                try:
                    os.rmdir(ctx.cgroup)
                    break
                except OSError:
                    import time
                    time.sleep(0.1)
        finally:
            _OOM_LOCK.release()
        if mode is None:
            return out
        start = next((i for i, l in enumerate(lines) if "invoked oom-killer" in l), None)
        if start is None:
            return out
        block = lines[start:]
        if mode == "summary":
            block = [l for l in block if re.search(r"oom-kill:|Killed process|invoked oom-killer", l)]
        return out + ("\n".join(block) + "\n").encode()
    return post


def in_cgroup(cmd_str):
    return lambda ctx: ["bash", "-c", f"echo $$ > {ctx.cgroup}/cgroup.procs; exec {cmd_str}"]


def register(R):
    sc, PY = R.sc, R.PY
    tr = R.torchrun

    def ulimit(kb, cmd):
        return ["bash", "-c", f"ulimit -v {kb}; exec {cmd}"]

    # ------------------------------------------------------------ segfault
    sc("segfault", "ctypes_string_at", expect=-11, code='''
        import ctypes
        print("reading tensor header", flush=True)
        ctypes.string_at(0)
        ''')
    sc("segfault", "faulthandler_flag", expect=-11, cmd=[PY, "-X", "faulthandler", "train.py"], code='''
        import ctypes, trainlib as T
        T.train(steps=5, fmt="plain", footer=False)
        def read_header(addr):
            return ctypes.string_at(addr)
        read_header(0)
        ''')
    sc("segfault", "c_null_deref", expect=-11, setup=lambda c: c.cc("loader", NULL_C), cmd=["./loader"], code="")
    sc("segfault", "bash_reports_segv", expect=139, setup=lambda c: c.cc("loader", NULL_C), cmd=["bash", "job.sh"], code="",
       files={"job.sh": '''
        #!/bin/bash
        echo "starting preprocessing on $(hostname)"
        ./loader --table batches.idx
        rc=$?
        echo "preprocessing exited with $rc"
        exit $rc
        '''})
    sc("segfault", "bash_core_dumped", expect=139, cmd=["bash", "job.sh"], code='''
        import ctypes, trainlib as T
        T.train(steps=20, fmt="plain2", footer=False)
        ctypes.memset(0, 0, 64)
        ''', files={"job.sh": '''
        #!/bin/bash
        set -e
        ulimit -c unlimited
        echo "launching training"
        /usr/bin/python3 -u train.py
        echo "training finished"
        '''}, notes="core file written to the job dir and discarded")
    sc("segfault", "faulthandler_enable_lib", expect=-11, unbuffered=True,
       setup=lambda c: subprocess.run(["gcc", "-shared", "-fPIC", "-o", c.path("libfusedadam.so"),
                                       c.write("fused.c", SEGV_LIB_C)], check=True), code='''
        import ctypes, faulthandler, torch, trainlib as T
        faulthandler.enable()
        lib = ctypes.CDLL("./libfusedadam.so")
        model, loss = T.train(steps=30, fmt="hf", footer=False)
        p = next(model.parameters())
        def fused_step(param, grad_ptr):
            lib.fused_adam_step(ctypes.c_void_p(param.data_ptr()), ctypes.c_void_p(grad_ptr), param.numel(), ctypes.c_float(1e-3))
        fused_step(p, 0)
        ''', notes="noisy: HF-style healthy prefix, crash in a native optimizer kernel")
    sc("segfault", "dataloader_worker_segv", expect=1, code='''
        import ctypes, torch
        from torch.utils.data import Dataset, DataLoader
        class Decoded(Dataset):
            def __len__(self):
                return 64
            def __getitem__(self, i):
                if i == 37:
                    ctypes.string_at(0)
                return torch.full((4,), float(i))
        if __name__ == "__main__":
            for step, b in enumerate(DataLoader(Decoded(), batch_size=4, num_workers=2)):
                print(f"step {step} batch mean {b.mean():.2f}", flush=True)
        ''', notes="torch reports the worker's SIGSEGV as a RuntimeError")
    sc("segfault", "torchrun_rank_segv", expect=1, cmd=lambda c: tr(c), code='''
        import ctypes, torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        for step in range(1, 6):
            t = torch.ones(4) * step
            dist.all_reduce(t)
            print(f"[rank {r}] step {step} allreduce {t[0].item():.0f}", flush=True)
        if r == 1:
            ctypes.string_at(0)
        time.sleep(3)
        ''')
    sc("segfault", "cpp_vector_oob_bash", expect=139, setup=lambda c: c.cc("tok", r'''
        #include <cstdio>
        #include <vector>
        int main() {
            std::vector<int> *vocab = nullptr;
            std::printf("tokenizer: loading merges\n");
            std::fflush(stdout);
            std::printf("vocab size %zu\n", vocab->size());
        }
        ''', cxx=True), cmd=["bash", "-c", "./tok --merges merges.txt\nexit $?"], code="")
    sc("segfault", "faulthandler_env_threads", expect=-11, env={"PYTHONFAULTHANDLER": "1"}, code='''
        import ctypes, threading, time, trainlib as T
        def prefetch():
            time.sleep(0.3)
            ctypes.string_at(8)
        t = threading.Thread(target=prefetch, name="prefetcher")
        t.start()
        T.train(steps=300, fmt="plain2", log_every=10, step_sleep=lambda s: 0.005)
        ''', notes="crash in a background thread; faulthandler via PYTHONFAULTHANDLER")

    # ------------------------------------------------------------ ram_oom
    sc("ram_oom", "bytearray_memoryerror", expect=1, cmd=ulimit(1500000, f"{PY} train.py"), code='''
        print("materialising token buffer")
        buf = bytearray(8 * 1024 ** 3)
        ''')
    sc("ram_oom", "numpy_arraymemoryerror", expect=1, cmd=ulimit(1500000, f"{PY} train.py"), code='''
        import numpy as np
        n_docs, dim = 2_000_000, 1024
        print(f"allocating embedding matrix {n_docs}x{dim}")
        emb = np.zeros((n_docs, dim), dtype=np.float32)
        emb[:] = 1
        ''')
    sc("ram_oom", "torch_cpu_alloc", expect=1, cmd=ulimit(3000000, f"{PY} train.py"), code='''
        import torch, trainlib as T
        T.train(steps=5, fmt="plain", footer=False)
        print("loading full model to CPU before sharding")
        weights = torch.empty(7_000_000_000, dtype=torch.float16)
        ''')
    sc("ram_oom", "cpp_bad_alloc", expect=-6, setup=lambda c: c.cc("indexer", BADALLOC_CPP, cxx=True),
       cmd=ulimit(2200000, "./indexer"), code="")
    sc("ram_oom", "cpp_bad_alloc_bash", expect=134, setup=lambda c: c.cc("indexer", BADALLOC_CPP, cxx=True),
       cmd=["bash", "job.sh"], code="", files={"job.sh": '''
        #!/bin/bash
        ulimit -v 3000000
        echo "[prep] building index"
        ./indexer
        rc=$?
        echo "[prep] indexer failed with $rc" >&2
        exit $rc
        '''})
    sc("ram_oom", "leak_in_loop", expect=1, unbuffered=True, cmd=ulimit(2600000, f"{PY} train.py"), code='''
        import torch, trainlib as T
        history = []
        def keep(step, loss, model):
            history.append(torch.ones(16_000_000))  # 64 MB per step, never freed
        T.train(steps=500, fmt="plain", on_step=keep)
        ''', notes="noisy: trains until the host allocation fails")
    sc("ram_oom", "mmap_enomem", expect=1, cmd=ulimit(1200000, f"{PY} train.py"), code='''
        import mmap
        print("creating shared-memory ring buffer (16 GiB)")
        ring = mmap.mmap(-1, 16 * 1024 ** 3)
        ''')
    sc("ram_oom", "dataloader_worker_memoryerror", expect=1, cmd=ulimit(2600000, f"{PY} train.py"), code='''
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Big(Dataset):
            def __len__(self):
                return 16
            def __getitem__(self, i):
                blob = b"\\0" * (4 * 1024 ** 3)
                return torch.zeros(2)
        if __name__ == "__main__":
            for b in DataLoader(Big(), batch_size=2, num_workers=2):
                print(b)
        ''')
    sc("ram_oom", "string_repeat", expect=1, cmd=ulimit(1500000, f"{PY} train.py"), code='''
        import json
        docs = ["lorem ipsum " * 10] * 10
        print("concatenating corpus")
        corpus = "".join(docs) * 50_000_000
        ''')
    sc("ram_oom", "hf_prefix_torch_cat", expect=1, unbuffered=True, cmd=ulimit(3000000, f"{PY} train.py"), code='''
        import torch, trainlib as T
        model, loss = T.train(steps=40, fmt="hf", footer=False)
        print("***** Running Prediction *****")
        preds = [torch.randn(1024, 1024) for _ in range(4)]
        allp = torch.cat(preds * 1000)
        ''')

    # ------------------------------------------------------------ oom_killer (real cgroup v1 OOM kills)
    alloc = '''
        import time, trainlib as T
        T.train(steps=%(steps)d, fmt="%(fmt)s", footer=False)
        chunks = []
        for i in range(400):
            chunks.append(bytearray(16 * 1024 * 1024))
            for j in range(0, len(chunks[-1]), 4096):
                chunks[-1][j] = 1
            if i %% 4 == 0:
                print(f"cached {len(chunks) * 16} MiB of decoded samples", flush=True)
        '''
    sc("oom_killer", "bare_sigkill", expect=-9, setup=lambda c: cgroup_setup(c, 400), post=cgroup_post(None),
       cmd=in_cgroup(f"{PY} -u train.py"), code=alloc % dict(steps=20, fmt="plain"),
       notes="real memory-cgroup OOM kill; job output only")
    sc("oom_killer", "with_dmesg_summary", expect=-9, setup=lambda c: cgroup_setup(c, 450), post=cgroup_post("summary"),
       cmd=in_cgroup(f"{PY} -u train.py"), code=alloc % dict(steps=30, fmt="hf"),
       notes="real memory-cgroup OOM kill; the kernel's own dmesg lines for it appended")
    sc("oom_killer", "with_dmesg_full", expect=-9, setup=lambda c: cgroup_setup(c, 500), post=cgroup_post("full"),
       cmd=in_cgroup(f"{PY} -u train.py"), code=alloc % dict(steps=10, fmt="megatron"),
       notes="real memory-cgroup OOM kill; the kernel's full OOM report appended")
    sc("oom_killer", "bash_killed", expect=137, setup=lambda c: cgroup_setup(c, 400), post=cgroup_post(None),
       cmd=lambda c: ["bash", "-c", f"echo $$ > {c.cgroup}/cgroup.procs; bash job.sh"], code=alloc % dict(steps=15, fmt="keras"),
       files={"job.sh": '''
        #!/bin/bash
        echo "job started on $(hostname) at $(date -u +%FT%TZ)"
        /usr/bin/python3 -u train.py
        rc=$?
        echo "train.py exited with status $rc"
        exit $rc
        '''})
    sc("oom_killer", "dataloader_worker_killed", expect=1, setup=lambda c: cgroup_setup(c, 700), post=cgroup_post(None),
       cmd=in_cgroup(f"{PY} train.py"), code='''
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Decoded(Dataset):
            def __init__(self):
                self.cache = []
            def __len__(self):
                return 4000
            def __getitem__(self, i):
                self.cache.append(bytearray(8 * 1024 * 1024))
                for j in range(0, len(self.cache[-1]), 4096):
                    self.cache[-1][j] = 1
                return torch.zeros(4)
        if __name__ == "__main__":
            for step, b in enumerate(DataLoader(Decoded(), batch_size=8, num_workers=2, persistent_workers=True)):
                if step % 5 == 0:
                    print(f"step {step}", flush=True)
        ''', notes="a DataLoader worker is OOM-killed in a memory cgroup; torch reports it")
    sc("oom_killer", "torchrun_rank_killed", expect=1, setup=lambda c: cgroup_setup(c, 900), post=cgroup_post(None),
       cmd=lambda c: ["bash", "-c", f"echo $$ > {c.cgroup}/cgroup.procs; exec " + " ".join(tr(c))], code='''
        import os, time, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        for step in range(1, 4):
            t = torch.ones(2)
            dist.all_reduce(t)
            print(f"[rank{r}] step {step}", flush=True)
        if r == 1:
            hog = []
            for i in range(200):
                b = bytearray(16 * 1024 * 1024)
                for j in range(0, len(b), 4096):
                    b[j] = 1
                hog.append(b)
        time.sleep(30)
        ''', hard_timeout=120)
    sc("oom_killer", "lightning_bare", expect=-9, setup=lambda c: cgroup_setup(c, 420), post=cgroup_post(None),
       cmd=in_cgroup(f"{PY} -u train.py"), code=alloc % dict(steps=48, fmt="lightning"))
    sc("oom_killer", "pinned_buffers_summary", expect=-9, setup=lambda c: cgroup_setup(c, 600), post=cgroup_post("summary"),
       cmd=in_cgroup(f"{PY} -u train.py"), code='''
        import torch, trainlib as T
        T.train(steps=25, fmt="plain2", footer=False)
        print("prefetching 64 batches into host buffers", flush=True)
        bufs = [torch.ones(8 * 1024 * 1024) for _ in range(64)]
        ''')
    sc("oom_killer", "bash_killed_python_logging", expect=137, setup=lambda c: cgroup_setup(c, 400), post=cgroup_post("summary"),
       cmd=lambda c: ["bash", "-c", f"echo $$ > {c.cgroup}/cgroup.procs; bash job.sh"], code=alloc % dict(steps=12, fmt="logging"),
       files={"job.sh": "#!/bin/bash\nset -e\n/usr/bin/python3 -u train.py --bf16\necho done\n"})
    sc("oom_killer", "silent_killed_no_output", expect=-9, setup=lambda c: cgroup_setup(c, 300), post=cgroup_post(None),
       cmd=in_cgroup(f"{PY} train.py"), code='''
        import numpy as np
        print("loading dataset into memory")   # block-buffered: lost when killed
        arr = np.ones((1024, 1024, 512), dtype=np.float32)
        ''', notes="stdout was block-buffered, so the kill leaves an empty log")

    # ------------------------------------------------------------ signal_kill
    sc("signal_kill", "python_abort", expect=-6, code='''
        import os, trainlib as T
        T.train(steps=8, fmt="plain", footer=False)
        os.abort()
        ''')
    sc("signal_kill", "faulthandler_abort", expect=-6, cmd=[PY, "-X", "faulthandler", "-u", "train.py"], code='''
        import os, trainlib as T
        T.train(steps=8, fmt="plain2", footer=False)
        def on_watchdog():
            os.abort()
        on_watchdog()
        ''')
    sc("signal_kill", "c_assert_abort", expect=-6, setup=lambda c: c.cc("spawn", ABORT_C), cmd=["./spawn"], code="",
       notes="a C assert() aborts the process (SIGABRT)")
    sc("signal_kill", "cpp_terminate", expect=-6, setup=lambda c: c.cc("reader", THROW_CPP, cxx=True), cmd=["./reader"], code="")
    sc("signal_kill", "sigbus_c", expect=-7, setup=lambda c: c.cc("mapper", SIGBUS_C), cmd=["./mapper"], code="")
    sc("signal_kill", "sigbus_python_faulthandler", expect=-7, env={"PYTHONFAULTHANDLER": "1"}, code='''
        import mmap, os, trainlib as T
        T.train(steps=10, fmt="plain", footer=False)
        with open("tokens.bin", "wb") as f:
            f.write(b"\\1" * (1 << 20))
        f = open("tokens.bin", "r+b")
        m = mmap.mmap(f.fileno(), 0)
        print("memory-mapped tokens.bin", flush=True)
        os.truncate("tokens.bin", 4096)
        print(m[500000])
        ''', notes="SIGBUS from touching a memory-mapped file that shrank")
    sc("signal_kill", "external_sigterm", expect=-15, kill_after=4, unbuffered=True, code='''
        import trainlib as T
        T.train(steps=100000, fmt="plain", log_every=20, step_sleep=lambda s: 0.01)
        ''', notes="SIGTERM sent from outside while the job was still progressing")
    sc("signal_kill", "external_sigkill_bare", expect=-9, kill_after=4, kill_signal=9, unbuffered=True, code='''
        import trainlib as T
        T.train(steps=100000, fmt="hf", log_every=20, step_sleep=lambda s: 0.01)
        ''', notes="bare SIGKILL from outside (kill -9), no memory pressure: log alone cannot tell it from an OOM kill")
    sc("signal_kill", "torchrun_rank_sigabrt", expect=1, cmd=lambda c: tr(c), code='''
        import os, torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        for step in range(1, 4):
            t = torch.ones(2); dist.all_reduce(t)
            print(f"rank {r} step {step} ok", flush=True)
        if r == 0:
            os.abort()
        time.sleep(5)
        ''')
    sc("signal_kill", "torchrun_agent_sigterm", expect=1, kill_after=8, cmd=lambda c: tr(c), code='''
        import torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        for step in range(1, 100000):
            t = torch.ones(2); dist.all_reduce(t)
            if step % 50 == 0:
                print(f"rank {r} step {step}", flush=True)
            time.sleep(0.01)
        ''', notes="SIGTERM to the launcher's process group mid-run")
    sc("signal_kill", "bash_terminated", expect=143, kill_after=4, cmd=["bash", "job.sh"], code='''
        import trainlib as T
        T.train(steps=100000, fmt="keras", n=640, step_sleep=lambda s: 0.01)
        ''', files={"job.sh": "#!/bin/bash\ntrap 'echo \"job.sh: caught SIGTERM\"' TERM\n/usr/bin/python3 -u train.py\nrc=$?\necho \"exit $rc\"\nexit $rc\n"},
       notes="SIGTERM to the whole process group; the batch script traps it and reports its child")
    sc("signal_kill", "torchrun_rank_sigbus", expect=1, cmd=lambda c: tr(c), code='''
        import mmap, os, torch, torch.distributed as dist, time
        dist.init_process_group("gloo")
        r = dist.get_rank()
        fn = f"shm_rank{r}.bin"
        open(fn, "wb").write(b"\\0" * (1 << 20))
        m = mmap.mmap(os.open(fn, os.O_RDWR), 0)
        print(f"rank {r}: mapped {fn}", flush=True)
        if r == 1:
            os.truncate(fn, 0)
            m[4096]
        time.sleep(5)
        ''')

    # ------------------------------------------------------------ env_mismatch (real ones)
    sc("env_mismatch", "bad_interpreter", expect=127, cmd=["bash", "-c", "./train.py --epochs 1"],
       setup=lambda c: c.write("train.py", "#!/opt/conda/envs/llm/bin/python\nprint('hi')\n", mode=0o755), code=None,
       notes="exec failure: the script's interpreter does not exist on this node")
    sc("env_mismatch", "undefined_symbol_ext", expect=1, setup=lambda c: build_ext(c, "_fused_ops", "fusedops", "fused_layernorm_fwd_v2", lib_has_sym=False),
       code='''
        import torch
        print("torch", torch.__version__)
        import _fused_ops
        ''', notes="extension built against a library that was replaced by an older build")
    sc("env_mismatch", "ctypes_undefined_symbol", expect=1, setup=lambda c: (
        c.write("plugin.c", "extern int ncclCommInitRankConfig(int);\nint plugin_init(void){return ncclCommInitRankConfig(0);}\n"),
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", c.path("libnet_plugin.so"), c.path("plugin.c")], check=True)), code='''
        import ctypes
        print("loading network plugin ./libnet_plugin.so")
        ctypes.CDLL("./libnet_plugin.so")
        ''')
    sc("env_mismatch", "glibc_program", expect=1, setup=lambda c: bump_glibc(c.cc("prep", "#include <stdio.h>\nint main(){puts(\"ok\");return 0;}\n")),
       cmd=["bash", "-c", "./prep --threads 4; exit $?"], code=None,
       notes="binary edited to require GLIBC_2.99, as a binary built on a newer distro would")
    sc("env_mismatch", "glibc_extension", expect=1, setup=lambda c: (build_ext(c, "_kernels", "kern", "kern_fn"),
                                                                     bump_glibc(c.path("_kernels.cpython-311-x86_64-linux-gnu.so"), b"GLIBC_2.2.5", b"GLIBC_2.9.9")),
       code='''
        import torch
        import _kernels
        ''', notes="extension's glibc requirement raised to a version this libc lacks")
    sc("env_mismatch", "glibcxx_lib", expect=1, setup=lambda c: (
        c.write("cx.cpp", "#include <string>\n#include <stdexcept>\nextern \"C\" int f(){ std::string s(\"x\"); if(s.empty()) throw std::runtime_error(s); return s.size();}\n"),
        subprocess.run(["g++", "-shared", "-fPIC", "-o", c.path("libtokenizers_c.so"), c.path("cx.cpp")], check=True),
        bump_glibc(c.path("libtokenizers_c.so"), b"GLIBCXX_3.4", b"GLIBCXX_9.9")), code='''
        import ctypes
        lib = ctypes.CDLL("./libtokenizers_c.so")
        ''', notes="C++ library's libstdc++ version requirement raised")
    sc("env_mismatch", "torch_no_cuda", expect=1, code='''
        import torch, trainlib as T
        model = T.make_model()
        print(f"torch {torch.__version__}, moving model to GPU")
        model = model.cuda()
        ''', notes="CPU-only torch build on this node")
    sc("env_mismatch", "nccl_not_built", expect=1, cmd=lambda c: tr(c), code='''
        import torch.distributed as dist
        dist.init_process_group(backend="nccl")
        ''', notes="torch build without NCCL")
    sc("env_mismatch", "set_device_no_cuda", expect=1, unbuffered=True, code='''
        import os, torch
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        print(f"local rank {local_rank}")
        torch.cuda.set_device(local_rank)
        ''')
    sc("env_mismatch", "amp_warning_then_cuda", expect=1, unbuffered=True, code='''
        import torch, trainlib as T
        scaler = torch.cuda.amp.GradScaler()
        x = torch.randn(4, 4, device="cuda")
        ''')

    # ------------------------------------------------------------ missing_module (native loader)
    sc("missing_module", "ext_missing_lib", expect=1, setup=lambda c: build_ext(c, "_C", "cudnn_ops_infer", "cudnnCreate", remove_lib=True),
       code='''
        import torch
        print("importing compiled extension")
        import _C
        ''', notes="a real extension whose linked library (named like cuDNN 8) is absent")
    sc("missing_module", "c_program_missing_so", expect=127, setup=lambda c: (
        c.write("l.c", "int cudnnCreate(void){return 0;}\n"),
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", c.path("libcudnn.so.8"), "-Wl,-soname,libcudnn.so.8", c.path("l.c")], check=True),
        c.write("m.c", "int cudnnCreate(void);\nint main(){return cudnnCreate();}\n"),
        subprocess.run(["gcc", "-o", c.path("bench"), c.path("m.c"), c.path("libcudnn.so.8")], check=True),
        os.remove(c.path("libcudnn.so.8"))), cmd=["./bench"], code=None)
    sc("missing_module", "wrong_interpreter_no_torch", expect=1, cmd=["bash", "-c", "PATH=/root/.pyenv/shims:$PATH; exec python3 train.py"], code='''
        import torch
        print(torch.__version__)
        ''', notes="ran with an interpreter whose environment lacks torch")

    # ------------------------------------------------------------ hang
    sc("hang", "sleep_after_progress_sigterm", expect=-15, kill_after=8, unbuffered=True, code='''
        import threading, trainlib as T
        T.train(steps=40, fmt="plain", footer=False)
        print("waiting for evaluation workers", flush=True)
        threading.Event().wait()
        ''', notes="killed by SIGTERM (as at a time limit) after long silence")
    sc("hang", "timeout_cmd", expect=124, cmd=["timeout", "-s", "TERM", "8", PY, "-u", "train.py"], code='''
        import time, trainlib as T
        T.train(steps=30, fmt="hf", footer=False)
        while True:
            time.sleep(60)
        ''', notes="coreutils timeout ended it (exit 124)")
    sc("hang", "ddp_rank_stuck", expect=1, kill_after=15, cmd=lambda c: tr(c), code='''
        import time, datetime, torch, torch.distributed as dist
        dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=30))
        r = dist.get_rank()
        for step in range(1, 11):
            t = torch.ones(2); dist.all_reduce(t)
            print(f"[rank{r}] step {step} loss {2.0 / step:.3f}", flush=True)
        if r == 1:
            time.sleep(3600)
        t = torch.ones(2); dist.all_reduce(t)
        ''', notes="one rank stops calling the collective; its peer blocks until SIGTERM reaches the launcher and workers")
    sc("hang", "empty_log", expect=-15, kill_after=6, code='''
        import time
        time.sleep(3600)
        ''', notes="no output at all; killed after 6 s")
    sc("hang", "lock_deadlock", expect=-15, kill_after=8, unbuffered=True, code='''
        import threading, trainlib as T
        a, b = threading.Lock(), threading.Lock()
        T.train(steps=25, fmt="plain2", footer=False)
        def saver():
            with b:
                import time; time.sleep(0.2)
                with a:
                    pass
        t = threading.Thread(target=saver); t.start()
        with a:
            import time; time.sleep(0.2)
            with b:
                print("checkpoint written")
        ''')
    sc("hang", "dataloader_worker_stuck", expect=-15, kill_after=10, code='''
        import time, torch
        from torch.utils.data import Dataset, DataLoader
        class Remote(Dataset):
            def __len__(self):
                return 400
            def __getitem__(self, i):
                if i >= 96:
                    time.sleep(3600)  # a network read that never returns
                return torch.zeros(4)
        if __name__ == "__main__":
            for step, b in enumerate(DataLoader(Remote(), batch_size=8, num_workers=2)):
                print(f"step {step}", flush=True)
        ''')
    sc("hang", "tqdm_then_silent", expect=124, cmd=["timeout", "10", PY, "train.py"], code='''
        import time
        from tqdm import tqdm
        for i in tqdm(range(200), desc="Epoch 1", mininterval=0):
            time.sleep(0.01 if i < 120 else 3600)
        ''')
    sc("hang", "megatron_barrier", expect=1, kill_after=14, cmd=lambda c: tr(c), code='''
        import threading, datetime, trainlib as T, torch.distributed as dist
        dist.init_process_group("gloo", timeout=datetime.timedelta(hours=1))
        r = dist.get_rank()
        if r == 0:
            T.train(steps=20, fmt="megatron", footer=False, save_every=0)
            print("saving checkpoint at iteration      20 to checkpoints", flush=True)
            threading.Event().wait()  # stuck writing to a dead filesystem
        dist.barrier()
        ''', notes="rank 0 blocks forever after its save; rank 1 waits in a barrier; SIGTERM at the limit")
    sc("hang", "keras_stall_bash_timeout", expect=124, cmd=["bash", "job.sh"], code='''
        import time, trainlib as T
        T.train(steps=30, fmt="keras", n=320, footer=False, on_step=lambda s, l, m: time.sleep(3600) if s == 25 else None)
        ''', files={"job.sh": "#!/bin/bash\necho \"start $(date -u +%FT%TZ)\"\ntimeout -s TERM 9 /usr/bin/python3 -u train.py\nrc=$?\necho \"train exited $rc at $(date -u +%FT%TZ)\"\nexit $rc\n"})

    # ------------------------------------------------------------ env_mismatch: real CUDA toolkit, no driver
    # This machine has a CUDA 13 toolkit and NCCL (/usr/local/cuda-13.0) but
    # no NVIDIA driver (no libcuda.so): the runtime really reports an
    # insufficient driver, and NCCL really logs its WARN lines for it.
    NVCC = "/usr/local/cuda-13.0/bin/nvcc"
    CU = r'''
#include <cstdio>
#include <cuda_runtime.h>
#include <nccl.h>
#include <cublas_v2.h>
#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(e), cudaGetErrorName(e), __FILE__, __LINE__); return 1; } } while (0)
int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "alloc";
    printf("[init] mode=%s\n", what); fflush(stdout);
    if (what[0] == 'n') {
        ncclUniqueId id; ncclResult_t r = ncclGetUniqueId(&id);
        ncclComm_t comm; r = ncclCommInitRank(&comm, 1, id, 0);
        if (r != ncclSuccess) { fprintf(stderr, "NCCL failure %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); return 1; }
        return 0;
    }
    if (what[0] == 'b') {
        cublasHandle_t h; cublasStatus_t s = cublasCreate(&h);
        if (s != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cuBLAS error: %s (%d) at %s:%d\n", cublasGetStatusName(s), (int)s, __FILE__, __LINE__); return 1; }
        return 0;
    }
    int n = 0;
    CUDA_CHECK(cudaGetDeviceCount(&n));
    float *buf; CUDA_CHECK(cudaMalloc(&buf, 1 << 20));
    printf("devices: %d\n", n);
    return 0;
}
'''

    def cu_build(ctx):
        ctx.write("bench.cu", CU)
        subprocess.run([NVCC, "-o", ctx.path("bench"), ctx.path("bench.cu"), "-lnccl", "-lcublas"], check=True, cwd=ctx.dir)

    if os.path.exists(NVCC):
        sc("env_mismatch", "cuda_driver_insufficient", expect=1, setup=cu_build, cmd=["./bench", "alloc"], code=None,
           notes="real CUDA 13 runtime on a node without an NVIDIA driver")
        sc("env_mismatch", "nccl_info_driver", expect=1, setup=cu_build, cmd=["./bench", "nccl"], code=None,
           env={"NCCL_DEBUG": "INFO"}, notes="real NCCL 2.x log lines (NCCL_DEBUG=INFO) on a node without a driver")
        sc("env_mismatch", "nccl_warn_driver", expect=1, setup=cu_build, cmd=["bash", "-c", "./bench nccl; rc=$?; echo \"bench exited $rc\"; exit $rc"],
           code=None, env={"NCCL_DEBUG": "WARN"})
        sc("env_mismatch", "cublas_no_driver", expect=1, setup=cu_build, cmd=["./bench", "blas"], code=None,
           notes="cuBLAS cannot initialise without a driver")
