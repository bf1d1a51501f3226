"""Apply benchmark driver (see run.sh): batch vs apply per model, at two index sizes, and the
latency of tag_text on a server that is applying a model. Standard library only."""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

TA, CORPORA, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SIZES = [int(n) for n in sys.argv[4:]] or [50000, 200000]
ENV = dict(os.environ, TA_ADMIN_PASSWORD="bench-Pass-1", TA_CONFIG_DIR=os.path.join(WORK, "config"))


def corpus(n):
    """A JSONL file of n documents: the English and labelled corpora's texts, repeated."""
    path = os.path.join(WORK, f"docs-{n}.jsonl")
    texts = []
    for name in ("en", "labelled"):
        with open(os.path.join(CORPORA, f"{name}.jsonl"), encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            out.write(json.dumps({"text": texts[i % len(texts)], "n": i}, ensure_ascii=False) + "\n")
    return path


def timed(args, data, stdin=None):
    """Runs ta; returns (seconds, peak RSS in MB, peak anonymous RSS in MB). The RSS counts
    the index files ta maps (page cache, given back under pressure); the anonymous part is
    the memory ta itself holds."""
    start = time.monotonic()
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        p = subprocess.Popen([TA, "--data-dir", data, *args], stdin=inp, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=ENV)
        peak = {"VmHWM": 0, "RssAnon": 0}
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    for line in f:
                        key = line.split(":")[0]
                        if key in peak:
                            peak[key] = max(peak[key], int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.02)
        err = p.stderr.read()
    elapsed = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}: {err.decode()[-2000:]}")
    return elapsed, peak["VmHWM"] / 1024, peak["RssAnon"] / 1024


def ta(data, *args):
    p = subprocess.run([TA, "--data-dir", data, *args, "--json"], capture_output=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}: {p.stderr.decode()}")
    return json.loads(p.stdout)


def prepare(n):
    """A data directory with the n documents imported and the models made."""
    data = os.path.join(WORK, f"data-{n}")
    docs = corpus(n)
    ta(data, "project", "create", "--title", "bench")
    ta(data, "import", "--project", "1", "--index", "bench", "--description", "d", docs)
    lexicon = ["file", "image", "window", "click", "select", "money", "free", "layer", "menu", "text"]
    args = ["regex-tagger", "create", "--project", "1", "--description", "words"]
    for w in lexicon:
        args += ["--lexicon", w]
    ta(data, *args)
    query = json.dumps({"query": {"match": {"text": "click"}}})
    ta(data, "tagger", "create", "--project", "1", "--description", "click", "--field", "text", "--query", query)
    return data, docs


def row(name, n, batch, apply):
    (bt, brss, banon), (at, arss, aanon) = batch, apply
    print(f"{name:<14} {n:>8} {n / bt:>12.0f} {n / at:>12.0f} {at / bt:>7.2f} {brss:>9.0f} {banon:>9.0f} {arss:>9.0f} {aanon:>9.0f}")


def latency_under_apply(data, n):
    """p50/p99 of tag_text while the server applies the regex tagger to the index."""
    port = 18000 + os.getpid() % 1000
    server = subprocess.Popen([TA, "--data-dir", data, "serve", "--port", str(port)], env=ENV,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health/", timeout=1)
                break
            except Exception:
                time.sleep(0.1)

        def call(method, path, body=None, token=None):
            req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})})
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read() or b"null")

        token = call("POST", "/rest-auth/login/", {"username": "admin", "password": "bench-Pass-1"})["key"]
        call("POST", "/projects/1/regex_taggers/1/apply_to_index/", {"description": "b", "fields": ["text"], "new_fact_name": "LAT"}, token)
        times, done = [], threading.Event()

        def watch():
            while call("GET", "/projects/1/regex_taggers/1/", token=token)["task"]["status"] not in ("completed", "failed"):
                time.sleep(0.2)
            done.set()

        threading.Thread(target=watch, daemon=True).start()
        while not done.is_set():
            start = time.monotonic()
            call("POST", "/projects/1/regex_taggers/1/tag_text/", {"text": "click the menu and select a layer"}, token)
            times.append((time.monotonic() - start) * 1000)
            time.sleep(0.01)
        times.sort()
        pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
        print(f"\ntag_text during an apply of {n} documents: {len(times)} calls, p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms")
    finally:
        server.terminate()
        server.wait()


def main():
    print(f"load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'model':<14} {'docs':>8} {'batch doc/s':>12} {'apply doc/s':>12} {'ratio':>7} {'batch MB':>9} {'anon MB':>9} {'apply MB':>9} {'anon MB':>9}")
    with_language = subprocess.run([TA, "mlp", "Tere"], capture_output=True, env=ENV).returncode == 0
    last = None
    for n in SIZES:
        data, docs = prepare(n)
        row("regex tagger", n, timed(["regex-tagger", "tag", "1", "--field", "text"], data, docs),
            timed(["regex-tagger", "apply", "1", "--field", "text"], data))
        row("tagger", n, timed(["tagger", "tag", "1", "--field", "text"], data, docs),
            timed(["tagger", "apply", "1", "--field", "text", "--fact-name", "T"], data))
        if with_language:
            row("mlp lemmas", n, timed(["mlp", "--field", "text", "--analyzers", "lemmas"], data, docs),
                timed(["mlp-index", "create", "--project", "1", "--field", "text", "--analyzer", "lemmas"], data))
        last = (data, n)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    latency_under_apply(*last)


main()
