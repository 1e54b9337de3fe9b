# The GPUAlert paper's approach, as a baseline for speed: fifteen case-insensitive
# regular expressions tried in order over the whole text of the log; the first that
# matches names the failure. The patterns are our own, one per common failure.
# Usage: reference_regexes.py LOG   (prints the class)
import re
import sys

PATTERNS = [
    ("cuda_oom", r"CUDA out of memory|OutOfMemoryError|cudaErrorMemoryAllocation"),
    ("xid", r"NVRM: Xid \(PCI:[^)]*\): \d+"),
    ("ecc", r"uncorrectable ECC error|ECC error encountered"),
    ("nccl", r"NCCL (?:WARN|ERROR)|ncclSystemError|ncclInternalError|NCCL communicator was aborted"),
    ("watchdog_timeout", r"Watchdog caught collective operation timeout"),
    ("oom_killer", r"oom-kill|Out of memory: Killed process|oom_kill_process"),
    ("segfault", r"Segmentation fault|SIGSEGV"),
    ("signal_kill", r"\bKilled\b|SIGKILL"),
    ("nan_loss", r"loss (?:is|became) nan|loss[^\n]{0,20}\bnan\b"),
    ("timeout", r"DUE TO TIME LIMIT"),
    ("missing_module", r"ModuleNotFoundError|ImportError"),
    ("file_not_found", r"FileNotFoundError|No such file or directory"),
    ("permission", r"PermissionError|Permission denied"),
    ("disk_full", r"No space left on device"),
    ("assertion", r"AssertionError"),
]
COMPILED = [(c, re.compile(p, re.IGNORECASE)) for c, p in PATTERNS]


def classify(text):
    for cls, rx in COMPILED:
        if rx.search(text):
            return cls
    return "unknown"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        print(classify(f.read()))
