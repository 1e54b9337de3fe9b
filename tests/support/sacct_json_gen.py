"""`sacct --json` output of Slurm 22.05 (data_parser v0.0.38) for made-up jobs, with the
fields a real record carries (steps, TRES, times, associations), for gpualert report's
tests and benchmark. Verdict tokens go in comment.system as the helper writes them."""
import json
import random

CLASSES = [("cuda_oom", "job"), ("missing_module", "job"), ("nan_loss", "job"), ("timeout", "scheduler"),
           ("gpu_hardware", "infra"), ("nccl", "job"), ("healthy", "none"), ("node_fail", "infra"),
           ("cancelled", "scheduler"), ("traceback", "job")]


def tag(cls, attr, conf, node, gpus, bad=()):
    t = "gpualert1:class=%s;attr=%s;conf=%.2f;node=%s" % (cls, attr, conf, node)
    if bad:
        t += ";bad=" + "+".join(bad)
    if gpus:
        t += ";gpus=" + "+".join(gpus)
    return t + ";v=0.1.0"


def tres(gpus, cpus, mem):
    out = [{"type": "cpu", "name": None, "id": 1, "count": cpus}, {"type": "mem", "name": None, "id": 2, "count": mem},
           {"type": "node", "name": None, "id": 4, "count": 1}, {"type": "billing", "name": None, "id": 5, "count": cpus}]
    if gpus:
        out.append({"type": "gres", "name": "gpu", "id": 1001, "count": gpus})
    return out


def step(job_id, sid, name, t0, t1, node, state, rc):
    return {
        "time": {"elapsed": t1 - t0, "end": t1, "start": t0, "suspended": 0,
                 "system": {"seconds": 3, "microseconds": 120}, "total": {"seconds": 50, "microseconds": 3},
                 "user": {"seconds": 47, "microseconds": 900}},
        "exit_code": {"status": "SUCCESS" if rc == 0 else "FAILED", "return_code": rc},
        "nodes": {"count": 1, "range": node}, "tasks": {"count": 1}, "pid": None, "CPU": {"requested_frequency": {"min": 0, "max": 0}, "governor": []},
        "kill_request_user": None, "state": state,
        "statistics": {"CPU": {"actual_frequency": 2100000}, "energy": {"consumed": 0}},
        "step": {"job_id": job_id, "het": {"component": None}, "id": sid, "name": name},
        "task": {"distribution": "Cyclic"},
        "tres": {"requested": {"max": [{"type": "cpu", "name": None, "id": 1, "count": 5000, "task": 0, "node": node}],
                               "min": [], "average": [], "total": []},
                 "consumed": {"max": [], "min": [], "average": [], "total": []},
                 "allocated": [{"type": "cpu", "name": None, "id": 1, "count": 8}]},
    }


def job(job_id, rng, nodes=64, users=300, gpus_per_node=8, with_verdicts=True, base=1_790_000_000, extra_system=""):
    node = "gpu%03d" % rng.randrange(nodes)
    user = "user%03d" % rng.randrange(users)
    g = rng.choice([0, 1, 1, 2, 4, 8])
    t0 = base + rng.randrange(7 * 86400)
    elapsed = rng.randrange(60, 86400)
    cls, attr = rng.choice(CLASSES)
    state = {"healthy": "COMPLETED", "timeout": "TIMEOUT", "cancelled": "CANCELLED", "node_fail": "NODE_FAIL"}.get(cls, "FAILED")
    gpus = ["0000:%02x:00" % (0x1b + 0x20 * i) for i in rng.sample(range(gpus_per_node), min(g, gpus_per_node))] if g else []
    bad = [rng.choice(gpus)] if cls == "gpu_hardware" and gpus else []
    system = tag(cls, attr, rng.choice([0.5, 0.7, 0.95]), node, gpus, bad) if with_verdicts else ""
    if extra_system:
        system = (extra_system + " " + system).strip()
    rc = 0 if state == "COMPLETED" else 1
    return {
        "account": "ml", "comment": {"administrator": "JS1:H4sIAAAAAAAAA6tWSs7PS8tMB", "job": None, "system": system or None},
        "allocation_nodes": 1,
        "array": {"job_id": 0, "limits": {"max": {"running": {"tasks": 0}}}, "task": None, "task_id": None},
        "association": {"account": "ml", "cluster": "c1", "partition": None, "user": user},
        "cluster": "c1", "constraints": "", "derived_exit_code": {"status": "SUCCESS", "return_code": 0},
        "time": {"elapsed": elapsed, "eligible": t0 - 30, "end": t0 + elapsed, "start": t0, "submission": t0 - 60,
                 "suspended": 0, "system": {"seconds": 3, "microseconds": 0}, "limit": 1440,
                 "total": {"seconds": 60, "microseconds": 0}, "user": {"seconds": 57, "microseconds": 0}},
        "exit_code": {"status": "SUCCESS" if rc == 0 else "FAILED", "return_code": rc},
        "flags": ["CLEAR_SCHEDULING", "STARTED_ON_SUBMIT"], "group": user,
        "het": {"job_id": 0, "job_offset": None}, "job_id": job_id, "name": "train-%d" % rng.randrange(1000),
        "mcs": {"label": ""}, "nodes": node, "partition": rng.choice(["gpu", "gpu-long", "debug"]), "priority": 4294901700,
        "qos": "normal", "required": {"CPUs": 8, "memory": 64000}, "kill_request_user": None,
        "reservation": {"id": 0, "name": 0}, "state": {"current": state, "reason": "None"},
        "steps": [step(job_id, "batch", "batch", t0, t0 + elapsed, node, state, rc),
                  step(job_id, 0, "python", t0 + 5, t0 + elapsed, node, state, rc)],
        "tres": {"allocated": tres(g, 8, 64000), "requested": tres(g, 8, 64000)},
        "user": user, "wckey": {"wckey": "", "flags": ["ASSIGNED_DEFAULT"]}, "working_directory": "/home/%s/run" % user,
    }


def document(jobs):
    return {"meta": {"plugin": {"type": "openapi/dbv0.0.38", "name": "Slurm OpenAPI DB v0.0.38"},
                     "Slurm": {"version": {"major": 22, "micro": 8, "minor": 5}, "release": "22.05.8"}},
            "errors": [], "warnings": [], "jobs": jobs}


def write(path, n, seed=1, **kw):
    rng = random.Random(seed)
    with open(path, "w") as f:
        # Written piecewise: a 100,000-job document is too big to build whole in memory.
        head = json.dumps(document([]), indent=2)
        f.write(head[:head.rindex("[")] + "[\n")
        for i in range(n):
            if i:
                f.write(",\n")
            f.write(json.dumps(job(1000 + i, rng, **kw), indent=2))
        f.write("\n  ]\n}\n")
