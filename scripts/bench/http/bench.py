"""Driver of scripts/bench/http/run.sh: starts `ta serve` on a fresh data directory, creates what
the requests need (a project with an index, a regex tagger, an anonymizer), then runs wrk against
each endpoint at each concurrency and prints one table, the server's resident memory and the
slow-client check, then the resident memory of a fresh server over its first 10,000 and the next
1,000,000 regex tag_text requests."""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, die  # noqa: E402

LUA = """wrk.method = "{method}"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["Authorization"] = "Token {token}"
"""


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def to_ms(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(url, method, body, token, connections, seconds, work):
    script = os.path.join(work, "request.lua")
    with open(script, "w") as f:
        f.write(LUA.format(method=method, body=json.dumps(json.dumps(body)) if body is not None else "nil", token=token))
    threads = min(2, connections)
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script, url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = to_ms(re.search(r"^\s*50%\s+(\S+)", out, re.M).group(1))
    p99 = to_ms(re.search(r"^\s*99%\s+(\S+)", out, re.M).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rate, p50, p99, total, errors + (int(bad.group(1)) if bad else 0)


def slow_client_check(host, port, url_path, token):
    """A request whose body trickles in one byte a second must not delay another client."""
    slow = socket.create_connection((host, port))
    body = b'{"text": "x"}'
    slow.sendall(f"POST {url_path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                 f"Authorization: Token {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body[:1])
    start = time.perf_counter()
    fast = socket.create_connection((host, port))
    fast.sendall(f"GET /api/v1/health/ HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    answer = fast.recv(64)
    waited = time.perf_counter() - start
    slow.close()
    fast.close()
    return answer.startswith(b"HTTP/1.1 200"), waited


def same_endpoint_memory(ta, path, method, body, work, target=1_000_000):
    """A fresh server's resident memory after 10,000 requests to one endpoint (path after
    /api/v1) and after `target` more (64 clients, wrk runs of 10 s until they add up);
    returns (first MB, later MB, count)."""
    served = ta.serve()
    try:
        url = f"http://{served.conn.host}:{served.conn.port}/api/v1{path}"
        done = 0
        while done < 10_000:
            done += wrk(url, method, body, served.token, 16, 1, work)[3]
        first = rss_mb(served.proc.pid)
        done = 0
        while done < target:
            done += wrk(url, method, body, served.token, 64, 10, work)[3]
        return first, rss_mb(served.proc.pid), done
    finally:
        served.stop()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("work")
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--concurrency", default="1,16,64,256")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    ta = Ta(a.ta, a.work)
    docs = os.path.join(a.work, "docs.jsonl")
    with open(docs, "w") as f:
        for i in range(20_000):
            f.write(json.dumps({"text": f"Politsei pidas kinni varga number {i}, kes varastas poest telefoni."}) + "\n")
    ta.cli("import", "--project", ta.project, "--index", "bench", "--description", "bench", docs)
    server = ta.serve()
    try:
        pk = ta.project
        tagger = server.call("POST", f"/projects/{pk}/regex_taggers/", {"description": "crime", "lexicon": ["varas", "varga", "politsei"]})
        anonymizer = server.call("POST", f"/projects/{pk}/anonymizers/", {"description": "names"})
        has_mlp = os.path.isdir(os.path.join(ta.env["TA_DATA_DIR"], "mlp")) or bool(os.environ.get("TA_MLP_DATA"))
        host, port = server.conn.host, server.conn.port
        base = f"http://{host}:{port}/api/v1"
        rows = [
            ("regex tag_text", "POST", f"/projects/{pk}/regex_taggers/{tagger['id']}/tag_text/", {"text": "Politsei pidas varga kinni."}),
            ("anonymize_text", "POST", f"/projects/{pk}/anonymizers/{anonymizer['id']}/anonymize_text/",
             {"text": "Mari Tamm kohtus Jaan Kasega.", "names": ["Tamm, Mari", "Kask, Jaan"]}),
            ("search_by_query", "POST", f"/projects/{pk}/search_by_query/",
             {"query": {"query": {"match": {"text": "varga"}}, "size": 10}}),
            ("project list", "GET", "/projects/", None),
        ]
        if has_mlp:
            rows.insert(3, ("mlp/texts", "POST", "/mlp/texts/", {"texts": ["Politsei pidas varga kinni."]}))
        for _, method, path, body in rows:  # warm-up, and a check that each request is valid
            server.call(method, path, body)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wrk {a.seconds} s per row"
              + ("" if has_mlp else "; no language data: /mlp/texts/ skipped"))
        wrk(base + rows[0][2], rows[0][1], rows[0][3], server.token, 16, 2, a.work)
        warm = rss_mb(server.proc.pid)
        print(f"{'endpoint':16} {'conc':>5} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'requests':>9} {'errors':>7}")
        total = 0
        for name, method, path, body in rows:
            for c in map(int, a.concurrency.split(",")):
                rate, p50, p99, n, errors = wrk(base + path, method, body, server.token, c, a.seconds, a.work)
                total += n
                print(f"{name:16} {c:5} {rate:9.0f} {p50:8.2f} {p99:8.2f} {n:9} {errors:7}", flush=True)
        end = rss_mb(server.proc.pid)
        print(f"resident memory: {warm:.0f} MB after warm-up, {end:.0f} MB after {total} more requests "
              f"({(end - warm) / warm * 100:+.0f}%)")

        ok, waited = slow_client_check(host, port, f"/api/v1/projects/{pk}/regex_taggers/{tagger['id']}/tag_text/", server.token)
        print(f"slow client: another client answered {'200' if ok else 'NOT 200'} in {waited * 1000:.1f} ms while a body trickled")
    finally:
        server.stop()
    first, later, n = same_endpoint_memory(ta, rows[0][2], rows[0][1], rows[0][3], a.work)
    print(f"resident memory, regex tag_text alone on a fresh server: {first:.0f} MB after its first 10,000 requests, "
          f"{later:.0f} MB after {n} more ({(later - first) / first * 100:+.0f}%)")


if __name__ == "__main__":
    main()
