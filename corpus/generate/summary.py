#!/usr/bin/python3
"""Print per-class counts (real/synthetic) and the corpus size; check every label."""
import collections
import json
import os

CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAXONOMY = os.path.join(CORPUS, "..", "..", "shared", "taxonomy.md")


def main():
    rows = [json.loads(l) for l in open(os.path.join(CORPUS, "labels.jsonl")) if l.strip()]
    counts = collections.defaultdict(collections.Counter)
    size = 0
    for r in rows:
        p = os.path.join(CORPUS, r["log_path"])
        assert os.path.exists(p), r["id"]
        size += os.path.getsize(p)
        counts[r["mode"]][r["source"]] += 1
    ids = list(counts)
    if os.path.exists(TAXONOMY):
        tax = [l.split("|")[1].strip() for l in open(TAXONOMY) if l.startswith("| ") and not l.startswith("| id")]
        tax = [t for t in tax if t and not t.startswith("-")]
        unknown = set(ids) - set(tax)
        assert not unknown, f"modes not in the taxonomy: {unknown}"
        ids = tax
    print(f"{'class':22s} {'real':>5s} {'synth':>5s} {'total':>5s}")
    for t in ids:
        c = counts[t]
        print(f"{t:22s} {c['real']:5d} {c['synthetic']:5d} {c['real'] + c['synthetic']:5d}")
    real = sum(c["real"] for c in counts.values())
    syn = sum(c["synthetic"] for c in counts.values())
    print(f"{'TOTAL':22s} {real:5d} {syn:5d} {len(rows):5d}   logs: {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
