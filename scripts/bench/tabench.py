"""Helpers shared by the benchmark drivers (scripts/bench/*/bench.py): failing with a message,
running a command for its output (optionally with its time and peak memory), a ta binary in
local mode on its own data directory (and `ta serve` on it), the every-5th held-out split,
F1 macro and percentiles."""
import http.client
import json
import os
import subprocess
import sys
import threading
import time


def die(msg):
    sys.exit(f"bench: {msg}")


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        die(f"{' '.join(map(str, cmd))} failed ({res.returncode}):\n{res.stderr[-2000:]}")
    return res.stdout


def run_measured(cmd, env=None, stdin=None):
    """Runs `cmd` to completion; returns (stdout, wall seconds, peak RSS in MB of that process)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    streams = {}
    readers = [threading.Thread(target=lambda n=n, f=f: streams.__setitem__(n, f.read()))
               for n, f in (("out", proc.stdout), ("err", proc.stderr))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        die(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{streams['err'][-2000:]}")
    return streams["out"], seconds, usage.ru_maxrss / 1024


def split(corpus, work):
    """Writes train.jsonl and test.jsonl (held out: line index % 5 == 0) under `work`, and
    flushes them to disk: the kernel writing them back during the first timed run took one of
    this machine's two cores from it (that run was 30-60 % slower than the next ones)."""
    train, test = os.path.join(work, "train.jsonl"), os.path.join(work, "test.jsonl")
    with open(corpus) as f, open(train, "w") as tr, open(test, "w") as te:
        for i, line in enumerate(f):
            (te if i % 5 == 0 else tr).write(line)
    os.sync()
    return train, test



def percentile(values, q):
    """The q-quantile (0 to 1) of `values` by the nearest-rank rule."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def f1_macro(truth, predicted):
    """(F1 macro, accuracy) as scikit-learn computes them."""
    from sklearn.metrics import accuracy_score, f1_score
    return f1_score(truth, predicted, average="macro"), accuracy_score(truth, predicted)


class Ta:
    """A ta binary with its own data and config directories (local mode, never a server)."""

    def __init__(self, binary, work):
        self.binary = binary
        self.env = dict(os.environ, TA_DATA_DIR=os.path.join(work, "data"),
                        TA_CONFIG_DIR=os.path.join(work, "config"), TA_ADMIN_PASSWORD="bench")
        self.env.pop("TA_SERVER", None)
        self.project = json.loads(self.cli("project", "create", "--title", "bench", "--user", "admin"))["id"]

    def cli(self, *args, stdin=None):
        return run([self.binary, "--json", *map(str, args)], env=self.env, stdin=stdin)

    def serve(self):
        """`ta serve` on this data directory (a free port), logged in as admin."""
        return Served(self)


class Served:
    """A running `ta serve` and one kept-alive HTTP connection to it; `stop()` ends it."""

    def __init__(self, ta):
        log = open(os.path.join(ta.env["TA_DATA_DIR"], "serve.log"), "w+")
        self.proc = subprocess.Popen([ta.binary, "serve", "--host", "127.0.0.1", "--port", "0"], env=ta.env,
                                     stdout=subprocess.DEVNULL, stderr=log)
        for _ in range(600):
            log.seek(0)
            found = [w for w in log.read().split() if w.startswith("http://")]
            if found:
                break
            if self.proc.poll() is not None:
                die(f"ta serve ended ({self.proc.returncode}): see {log.name}")
            time.sleep(0.1)
        else:
            self.stop()
            die("ta serve did not start in 60 s")
        self.conn = http.client.HTTPConnection(found[0].split("/")[2], timeout=60)
        self.token = None
        self.token = self.call("POST", "/rest-auth/login/", {"username": "admin", "password": ta.env["TA_ADMIN_PASSWORD"]})["key"]

    def call(self, method, path, body=None):
        """The JSON answer of an API call (path after /api/v1); dies unless 2xx."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        self.conn.request(method, "/api/v1" + path, json.dumps(body) if body is not None else None, headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.status // 100 != 2:
            die(f"{method} {path}: HTTP {resp.status}: {data[:300]!r}")
        return json.loads(data)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
