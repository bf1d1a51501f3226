#!/usr/bin/env python3
"""Anonymizer benchmark: ta's streaming anonymization side by side with texta-anonymizer.

usage: bench.py TA_BINARY PEERS_DIR VENV CORPUS.jsonl WORK_DIR [--repeats N] [--limit N]

Both run on the first --limit mails of CORPUS (the peer kit's labelled.jsonl, SpamAssassin) with the names and
settings of the kit's configs/anonymizer_en.json. ta runs `ta anonymizer run ID --names names.txt` in local
mode on a fresh data directory (texts as JSON strings on stdin, one anonymizer call per 2048 texts, rayon over
all cores) and is timed as a whole process minus the same process on the first text only (start-up, database
and anonymizer construction: what the peer excludes as load and warm-up). The peer is the kit's
bench_anonymizer.py (`Anonymizer.anonymize` per mail, random replacers). ta and the peer run alternately; each
figure is the median of --repeats runs. ta's CPU seconds (user + system, same subtraction) show how many cores
it kept busy and what it would do on an idle machine.

Output check: replacers are random, so both sides also run once with the same fixed replacers (ta with
`--replacers`, the peer through reference.py) on the whitespace-trimmed texts (ta's API trims them) and must
give identical texts, except where the reference raises (it uses matched text as a regex pattern).
Exits non-zero if an output disagrees.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tabench import Ta, die, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = ("replace_misspelled_names", "replace_single_last_names", "replace_single_first_names",
            "misspelling_threshold", "mimic_casing", "auto_adjust_threshold")


class AnonymizerTa(Ta):
    """ta with the commands this benchmark drives."""

    def create_anonymizer(self, cfg):
        args = ["anonymizer", "create", "--project", self.project, "--description", "bench"]
        for key in SETTINGS:
            if key in cfg:
                value = cfg[key]
                args += [f"--{key.replace('_', '-')}", str(value).lower() if isinstance(value, bool) else value]
        return json.loads(self.cli(*args))["id"]

    def anonymize(self, anonymizer, names, texts, out_path, *extra):
        """Wall and CPU seconds of one `ta anonymizer run` over `texts`, output to `out_path`."""
        cmd = [self.binary, "anonymizer", "run", str(anonymizer), "--names", names, *extra]
        with open(texts, "rb") as inp, open(out_path, "wb") as out:
            cpu0, t0 = cpu_of_children(), time.perf_counter()
            res = subprocess.run(cmd, stdin=inp, stdout=out, stderr=subprocess.PIPE, env=self.env)
            seconds, cpu = time.perf_counter() - t0, cpu_of_children() - cpu0
        if res.returncode != 0:
            die(f"ta anonymizer run failed:\n{res.stderr.decode()[-2000:]}")
        return seconds, cpu


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write_lines(path, rows):
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ta"); p.add_argument("peers"); p.add_argument("venv"); p.add_argument("corpus"); p.add_argument("work")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--limit", type=int, default=300, help="use only the first N mails [300, as the kit's baseline]")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    work = tempfile.mkdtemp(dir=a.work)
    py = os.path.join(a.venv, "bin", "python")
    config = os.path.join(a.peers, "configs", "anonymizer_en.json")
    with open(config, encoding="utf-8") as fh:
        cfg = json.load(fh)

    with open(a.corpus, encoding="utf-8") as src:
        lines = [line for line in src if line.strip()][: a.limit]
    corpus = os.path.join(work, "corpus.jsonl")
    with open(corpus, "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    raw = [json.loads(line).get("text", "") for line in lines]
    docs, mb = len(raw), sum(len(t.encode()) for t in raw) / 1e6
    texts, first = os.path.join(work, "texts.jsonl"), os.path.join(work, "first.jsonl")
    write_lines(texts, raw)
    write_lines(first, raw[:1])
    names = os.path.join(work, "names.txt")
    with open(names, "w", encoding="utf-8") as fh:
        fh.writelines(n + "\n" for n in cfg["names"])

    ta = AnonymizerTa(a.ta, work)
    anonymizer = ta.create_anonymizer(cfg)
    ta_out = os.path.join(work, "ta.jsonl")
    ta_secs, ta_cpu, peer_rows = [], [], []
    for _ in range(a.repeats):
        startup, startup_cpu = ta.anonymize(anonymizer, names, first, os.path.join(work, "first_out.jsonl"))
        seconds, cpu = ta.anonymize(anonymizer, names, texts, ta_out)
        ta_secs.append(seconds - startup)
        ta_cpu.append(cpu - startup_cpu)
        out = run([py, os.path.join(a.peers, "bench_anonymizer.py"), corpus, config, "--limit", str(docs)])
        peer_rows.append(json.loads(out.strip().splitlines()[-1]))
    ta_changed = sum(1 for t, o in zip(raw, read_lines(ta_out)) if t.strip() and o != t.strip())

    # Exact check with fixed replacers (distinct initials, one per name) on the trimmed texts.
    replacers = [f"{chr(65 + i % 26)}.{chr(90 - i // 26 % 26)}" for i in range(len(cfg["names"]))]
    fixed = os.path.join(work, "replacers.json")
    with open(fixed, "w", encoding="utf-8") as fh:
        json.dump([replacers], fh)
    with open(os.path.join(work, "replacers_flat.json"), "w", encoding="utf-8") as fh:
        json.dump(replacers, fh)
    keep = [i for i, t in enumerate(raw) if t.strip()]
    trimmed = os.path.join(work, "trimmed.jsonl")
    write_lines(trimmed, [raw[i].strip() for i in keep])
    ta_fixed, ref_fixed = os.path.join(work, "ta_fixed.jsonl"), os.path.join(work, "ref_fixed.jsonl")
    ta.anonymize(anonymizer, names, trimmed, ta_fixed, "--replacers", fixed)
    run([py, os.path.join(HERE, "reference.py"), trimmed, config, os.path.join(work, "replacers_flat.json"), ref_fixed])
    ours, theirs = read_lines(ta_fixed), read_lines(ref_fixed)
    if len(ours) != len(theirs):
        die(f"ta wrote {len(ours)} texts, the reference {len(theirs)} (outputs kept in {work})")
    raised = [r["i"] for r in theirs if "error" in r]
    bad = [r["i"] for o, r in zip(ours, theirs) if "error" not in r and o != r["text"]]
    replaced = sum(1 for r in theirs if "error" not in r and r["text"] != raw[keep[r["i"]]].strip())

    ta_s, cpu_s = statistics.median(ta_secs), statistics.median(ta_cpu)
    peer_s = statistics.median(r["seconds"] for r in peer_rows)
    print(f"corpus {os.path.basename(a.corpus)}: {docs} mails, {mb:.2f} MB of text, {len(cfg['names'])} names; "
          f"median of {a.repeats} runs; cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    print(f"{'anonymizer':<18} {'texts/s':>9} {'MB/s':>7} {'changed':>8}  ratio")
    print(f"{'ta':<18} {docs / ta_s:>9.1f} {mb / ta_s:>7.3f} {ta_changed:>8}  {peer_s / ta_s:.1f}x the reference "
          f"({docs / cpu_s:.0f} texts per CPU second, {cpu_s / ta_s:.2f} CPUs busy)")
    print(f"{'texta-anonymizer':<18} {docs / peer_s:>9.1f} {mb / peer_s:>7.3f} {peer_rows[0]['docs_changed']:>8}  "
          f"(raised on {peer_rows[0]['errors']})")
    agree = (f"identical on {len(ours) - len(raised)} of {len(ours)} texts ({replaced} with replacements; "
             f"the reference raised on {len(raised)})")
    if bad:
        agree = f"DIFFER on {len(bad)} texts (first: {bad[:5]})"
    print(f"{'fixed replacers':<18} {agree}")
    if bad:
        die(f"ta and texta-anonymizer disagree (outputs kept in {work})")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
