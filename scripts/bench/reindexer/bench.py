"""Reindexer benchmark driver (see run.sh): import, then copies of the same index, each timed
with its CPU time and peak RSS; ratios to the import. Standard library only."""
import json
import os
import resource
import subprocess
import sys
import time

TA, CORPORA, WORK, DOCS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
DATA = os.path.join(WORK, "data")
ENV = dict(os.environ, TA_ADMIN_PASSWORD="bench-Pass-1", TA_CONFIG_DIR=os.path.join(WORK, "config"))


def corpus(n):
    """n documents with a text, a source, a module and a label, from the English and labelled corpora."""
    path = os.path.join(WORK, "docs.jsonl")
    rows = []
    for name in ("en", "labelled"):
        with open(os.path.join(CORPORA, f"{name}.jsonl"), encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            row = rows[i % len(rows)]
            doc = {"text": row["text"], "source": row.get("source", "x"), "module": row.get("module", "m"),
                   "label": ["a", "b", "c"][i % 3], "n": i}
            out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    os.sync()
    return path


def timed(*args):
    """Runs `ta --json args`; returns (its JSON answer, wall s, CPU s, peak RSS MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run([TA, "--data-dir", DATA, "--json", *args], capture_output=True, env=ENV)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}: {p.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(p.stdout or "null"), wall, cpu, after.ru_maxrss / 1024


def main():
    docs = corpus(DOCS)
    timed("project", "create", "--title", "bench")
    print(f"load before: {os.getloadavg()[0]:.1f}; {DOCS} documents, {os.path.getsize(docs) / 1e6:.0f} MB")
    print(f"{'run':<34} {'wall s':>7} {'docs/s':>9} {'CPU s':>7} {'wall/import':>12} {'CPU/import':>11} {'peak MB':>8}")
    _, iw, ic, im = timed("import", "--project", "1", "--index", "bench", "--description", "d", docs)
    print(f"{'ta import':<34} {iw:>7.2f} {DOCS / iw:>9.0f} {ic:>7.2f} {1:>12.2f} {1:>11.2f} {im:>8.0f}")
    runs = [
        ("reindex, every field", ["reindexer", "create", "--project", "1", "--description", "r", "--index", "bench", "--new-index", "all"]),
        ("reindex, 2 fields, 1 renamed", ["reindexer", "create", "--project", "1", "--description", "r", "--index", "bench", "--new-index",
                                          "two", "--field", "text", "--field", "label", "--field-type", "label:keyword:category"]),
        ("reindex, random 10,000", ["reindexer", "create", "--project", "1", "--description", "r", "--index", "bench", "--new-index", "sample",
                                    "--random-size", "10000"]),
        ("split 80/20, random", ["index-splitter", "create", "--project", "1", "--description", "s", "--index", "bench", "--train-index", "train",
                                 "--test-index", "test", "--test-size", "20"]),
    ]
    for name, args in runs:
        out, w, c, m = timed(*args)
        status = (out or {}).get("task", {}).get("status")
        if status != "completed":
            sys.exit(f"{name}: task {status}: {out}")
        print(f"{name:<34} {w:>7.2f} {DOCS / w:>9.0f} {c:>7.2f} {w / iw:>12.2f} {c / ic:>11.2f} {m:>8.0f}")
    print(f"load after: {os.getloadavg()[0]:.1f}")


main()
