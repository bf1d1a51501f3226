#!/usr/bin/env python3
"""Regex tagger benchmark: ta's batch tagging side by side with the Python peers.

usage: bench.py TA_BINARY ENGINE_BINARY PEERS_DIR VENV CORPUS.jsonl WORK_DIR [--repeats N] [--limit N]

Two rows, each on the same corpus and lexicon (make_config.py's 200-entry prefix lexicon):
  regex   the full config (counter lexicon, counter_slop 2), ta vs texta-lexicon-matcher;
          the per-document matches (str_val and span) must be identical;
  plain   the lexicon alone (no counter lexicon, no regex features), ta vs the faster of
          flashtext / pyahocorasick (literal keyword matching, different semantics: only
          the throughput is compared).
ta runs `ta regex-tagger tag ID --field text < corpus` in local mode on a fresh data
directory (the "piped" row: `cat corpus | ta ...`, which reads stdin as a stream where the
file is mapped; both outputs must be identical) and is timed as a whole process minus the same process on the first line only (start-up,
database and matcher compilation: what the peers exclude as load and warm-up). The
"engine" rows time `Matcher::find` alone (ENGINE_BINARY, built from engine.rs) on 1 and 2
threads: the matcher's share without the command's JSON reading and writing. ta and the
peers run alternately; each figure is the median of --repeats runs. MB/s counts the UTF-8
bytes of the text field, as the peers do. Exits non-zero if an output disagrees.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tabench import Ta, die, run  # noqa: E402


class TaggerTa(Ta):
    """ta with the commands this benchmark drives."""

    def create_tagger(self, cfg, work, name):
        args = ["regex-tagger", "create", "--project", self.project, "--description", name]
        for key in ("lexicon", "counter_lexicon"):
            path = os.path.join(work, f"{name}.{key}.txt")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("".join(e + "\n" for e in cfg.get(key, [])))
            if cfg.get(key):
                args += [f"--{key.replace('_', '-')}-file", path]
        for key in ("operator", "match_type", "required_words", "phrase_slop", "counter_slop",
                    "n_allowed_edits", "return_fuzzy_match", "ignore_case", "ignore_punctuation"):
            if key in cfg:
                value = cfg[key]
                args += [f"--{key.replace('_', '-')}", str(value).lower() if isinstance(value, bool) else value]
        return json.loads(self.cli(*args))["id"]

    def tag(self, tagger, corpus, out_path, piped=False):
        """Wall seconds of one `ta regex-tagger tag` run over `corpus`, output to `out_path`;
        stdin is the file itself, or a pipe from `cat` when `piped`."""
        with open(corpus, "rb") as inp, open(out_path, "wb") as out:
            t0 = time.perf_counter()
            cat = subprocess.Popen(["cat"], stdin=inp, stdout=subprocess.PIPE) if piped else None
            res = subprocess.run([self.binary, "regex-tagger", "tag", str(tagger), "--field", "text"],
                                 stdin=cat.stdout if cat else inp, stdout=out, stderr=subprocess.PIPE, env=self.env)
            if cat:
                cat.stdout.close()
                cat.wait()
            seconds = time.perf_counter() - t0
        if res.returncode != 0:
            die(f"ta regex-tagger tag failed:\n{res.stderr.decode()[-2000:]}")
        return seconds


def peer(a, script, corpus, config, *extra):
    """One peer script run (`a`: the command line, for the kit and venv paths); its result line."""
    out = run([os.path.join(a.venv, "bin", "python"), os.path.join(a.peers, script), corpus, config, *extra])
    return json.loads(out.strip().splitlines()[-1])


def ta_matches(path):
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    for r in rows:
        if "error" in r:
            die(f"ta reported an item error: {r['error']}")
    return [[(m["str_val"], tuple(m["span"])) for m in r["matches"]] for r in rows]


def peer_matches(path):
    with open(path, encoding="utf-8") as fh:
        return [[(m["str_val"], tuple(m["span"])) for m in json.loads(line)["matches"]] for line in fh]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for arg in ("ta", "engine", "peers", "venv", "corpus", "work"):
        p.add_argument(arg)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--limit", type=int, default=0, help="use only the first N documents")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    work = tempfile.mkdtemp(dir=a.work)

    corpus = os.path.join(work, "corpus.jsonl")
    with open(a.corpus, encoding="utf-8") as src, open(corpus, "w", encoding="utf-8") as dst:
        lines = [line for line in src if line.strip()]
        lines = lines[: a.limit] if a.limit else lines
        dst.writelines(lines)
    first = os.path.join(work, "first.jsonl")
    with open(first, "w", encoding="utf-8") as fh:
        fh.write(lines[0])
    docs = len(lines)
    texts = [json.loads(line).get("text", "") for line in lines]
    mb = sum(len(t.encode()) for t in texts) / 1e6
    texts_bin = os.path.join(work, "texts.bin")
    with open(texts_bin, "w", encoding="utf-8") as fh:
        fh.write("".join(t + "\0" for t in texts))

    regex_cfg = json.loads(run([sys.executable, os.path.join(a.peers, "make_config.py"), corpus, "200"]))
    plain_cfg = dict(regex_cfg, counter_lexicon=[], description="200-word plain lexicon")
    configs = {}
    for name, cfg in (("regex", regex_cfg), ("plain", plain_cfg)):
        configs[name] = os.path.join(work, f"{name}.json")
        with open(configs[name], "w", encoding="utf-8") as fh:
            json.dump(cfg, fh, ensure_ascii=False)

    ta = TaggerTa(a.ta, work)
    taggers = {name: ta.create_tagger(cfg, work, name) for name, cfg in (("regex", regex_cfg), ("plain", plain_cfg))}
    peer_runs = {"regex": [("texta-lexicon-matcher", "bench_regex.py", [])],
                 "plain": [(n, "bench_keywords.py", ["--peer", n]) for n in ("flashtext", "pyahocorasick")]}

    engine_defaults = {"operator": "or", "match_type": "prefix", "required_words": 1.0, "phrase_slop": 0,
                       "n_allowed_edits": 0, "return_fuzzy_match": True, "ignore_case": True,
                       "ignore_punctuation": True}
    if any(regex_cfg.get(k, v) != v for k, v in engine_defaults.items()):
        die("make_config.py's config no longer matches what engine.rs assumes")

    def engine(mode, threads):
        out = run([a.engine, texts_bin, os.path.join(work, f"{mode}.lexicon.txt"),
                   os.path.join(work, f"{mode}.counter_lexicon.txt"), str(regex_cfg["counter_slop"]), str(threads)])
        return json.loads(out)

    rows, failed = [], False
    for mode in ("regex", "plain"):
        ta_out = os.path.join(work, f"ta_{mode}.jsonl")
        ta_piped_out = os.path.join(work, f"ta_{mode}_piped.jsonl")
        ta_secs, ta_piped_secs, peer_rows, engine_rows = [], [], {}, {1: [], 2: []}
        for i in range(a.repeats):
            startup = ta.tag(taggers[mode], first, os.path.join(work, "first_out.jsonl"))
            ta_secs.append(ta.tag(taggers[mode], corpus, ta_out) - startup)
            ta_piped_secs.append(ta.tag(taggers[mode], corpus, ta_piped_out, piped=True) - startup)
            for threads, runs in engine_rows.items():
                runs.append(engine(mode, threads))
            for name, script, extra in peer_runs[mode]:
                dump = ["--dump", os.path.join(work, "peer_regex.jsonl")] if mode == "regex" and i == 0 else []
                peer_rows.setdefault(name, []).append(peer(a, script, corpus, configs[mode], *extra, *dump))
        ours = ta_matches(ta_out)
        ta_s = statistics.median(ta_secs)
        peers = {n: statistics.median(r["seconds"] for r in runs) for n, runs in peer_rows.items()}
        best = min(peers, key=peers.get)
        agree = "n/a (other semantics)"
        if mode == "regex":
            theirs = peer_matches(os.path.join(work, "peer_regex.jsonl"))
            bad = [i for i, (x, y) in enumerate(zip(ours, theirs)) if x != y]
            if len(ours) != len(theirs) or bad:
                failed = True
                agree = f"DIFFER on {len(bad)} docs (first: {bad[:5]})"
            else:
                agree = f"identical ({sum(map(len, ours))} matches)"
        with open(ta_out, "rb") as x, open(ta_piped_out, "rb") as y:
            if x.read() != y.read():
                failed = True
                agree += "; piped input answered differently"
        ta_rows = [("ta (batch command)", ta_s, sum(map(len, ours))),
                   ("ta (batch, piped)", statistics.median(ta_piped_secs), sum(map(len, ours)))]
        for threads, runs in engine_rows.items():
            if any(r["matches"] != sum(map(len, ours)) for r in runs):
                failed = True
                agree += f"; engine found {runs[0]['matches']} matches"
            ta_rows.append((f"ta engine, {threads} thread{'s' if threads > 1 else ''}",
                            statistics.median(r["seconds"] for r in runs), runs[0]["matches"]))
        for name, secs, matches in ta_rows:
            rows.append((mode, name, docs / secs, mb / secs, matches, f"{peers[best] / secs:.1f}x vs {best}"))
        for name, secs in sorted(peers.items()):
            rows.append((mode, name, docs / secs, mb / secs, peer_rows[name][0]["matches"], ""))
        rows.append((mode, "agreement", None, None, None, agree))

    print(f"corpus {os.path.basename(a.corpus)}: {docs} docs, {mb:.2f} MB of text; median of {a.repeats} runs; "
          f"cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    print(f"{'mode':<6} {'matcher':<22} {'docs/s':>10} {'MB/s':>8} {'matches':>8}  speed-up")
    for mode, name, dps, mbs, matches, note in rows:
        if dps is None:
            print(f"{mode:<6} {name:<22} {'':>10} {'':>8} {'':>8}  {note}")
        else:
            print(f"{mode:<6} {name:<22} {dps:>10.0f} {mbs:>8.2f} {matches:>8}  {note}")
    if failed:
        die(f"outputs disagree (kept in {work})")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
