"""Driver of scripts/bench/classifier/run.sh: splits the corpus (held out: line index % 5 == 0),
trains and tags with ta (local mode, release build) and runs the sklearn peer on the same
file, then prints one table. F1 macro is computed the same way for both (sklearn's f1_score).
The two sides run alternately, --repeats times each (default 3), and every time is the median of
its runs: one ta training takes about a second here, where a stray burst of other work on this
shared 2-core machine moved a single run's ratio by a third."""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, die, f1_macro, run, run_measured, split  # noqa: E402

CONFIGS = {
    "hashing-lr": ("hashing", "logistic", "classifier_hashing_lr.json"),
    "tfidf-lr": ("tfidf", "logistic", "classifier_tfidf_lr.json"),
    "count-lr": ("count", "logistic", None),
    "hashing-svm": ("hashing", "linearsvc", None),
}


def ta_row(ta, name, vectorizer, classifier, train, test):
    out, train_s, train_rss = run_measured([ta.binary, "--json", "tagger", "train", "--project", str(ta.project),
                                            "--description", f"spam-{name}", "--field", "text", "--label-field", "label",
                                            "--positive", "spam", "--vectorizer", vectorizer, "--classifier", classifier,
                                            "--file", train], env=ta.env)
    model = json.loads(out)
    task = model["task"]
    fit_s = (timestamp(task["time_completed"]) - timestamp(task["time_started"])).total_seconds()
    docs = [json.loads(l) for l in open(test)]
    texts = os.path.join(os.path.dirname(test), "texts.jsonl")
    with open(texts, "w") as f:
        f.writelines(json.dumps({"text": d["text"]}) + "\n" for d in docs)
    with open(texts) as inp:
        out, seconds, tag_rss = run_measured([ta.binary, "--json", "tagger", "tag", str(model["id"])], env=ta.env, stdin=inp)
    predicted = ["spam" if json.loads(l).get("result") else "ham" for l in out.splitlines()]
    f1, acc = f1_macro([d["label"] for d in docs], predicted)
    return {"peer": "ta", "config": name, "f1_macro": f1, "accuracy": acc, "train_seconds": train_s, "fit_seconds": fit_s,
            "docs_per_s": len(docs) / seconds, "num_features": model["num_features"],
            "peak_rss_mb": max(train_rss, tag_rss)}


def timestamp(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def peer_row(venv, peers, corpus, config_file):
    cfg = os.path.join(peers, "configs", config_file)
    out = run([os.path.join(venv, "bin", "python"), os.path.join(peers, "bench_classifier.py"), corpus, cfg, "--peer", "sklearn"])
    return json.loads(out.strip().splitlines()[-1])


def medians(rows):
    """The first row with its times replaced by the medians over `rows` (the other figures are
    the same in every run: training is deterministic on both sides)."""
    out = dict(rows[0])
    for key in ("train_seconds", "fit_seconds", "docs_per_s", "peak_rss_mb"):
        if key in out:
            out[key] = statistics.median(r[key] for r in rows)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("peers"), p.add_argument("venv"), p.add_argument("corpus"), p.add_argument("work")
    p.add_argument("--configs", default="hashing-lr,tfidf-lr,count-lr,hashing-svm")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    train, test = split(a.corpus, a.work)
    ta = Ta(a.ta, a.work)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; times: median of {a.repeats} runs each, alternating")
    print(f"{'config':12} {'ta F1':>7} {'peer F1':>8} {'ta train s':>11} {'ta fit s':>9} {'peer train s':>13} {'train x':>8} {'fit x':>6} "
          f"{'ta docs/s':>10} {'peer docs/s':>12} {'predict x':>10} {'ta MB':>6} {'peer MB':>8}")
    for name in a.configs.split(","):
        if name not in CONFIGS:
            die(f"unknown config {name}; one of {', '.join(CONFIGS)}")
        vectorizer, classifier, peer_config = CONFIGS[name]
        mine, peer = [], []
        for _ in range(a.repeats):
            mine.append(ta_row(ta, name, vectorizer, classifier, train, test))
            if peer_config:
                peer.append(peer_row(a.venv, a.peers, a.corpus, peer_config))
        mine, peer = medians(mine), medians(peer) if peer else None
        if peer:
            print(f"{name:12} {mine['f1_macro']:7.4f} {peer['f1_macro']:8.4f} {mine['train_seconds']:11.2f} {mine['fit_seconds']:9.2f} "
                  f"{peer['train_seconds']:13.2f} {peer['train_seconds'] / mine['train_seconds']:8.1f} {peer['train_seconds'] / mine['fit_seconds']:6.1f} "
                  f"{mine['docs_per_s']:10.0f} {peer['docs_per_s']:12.0f} "
                  f"{mine['docs_per_s'] / peer['docs_per_s']:10.1f} {mine['peak_rss_mb']:6.0f} {peer['peak_rss_mb']:8.0f}")
        else:
            print(f"{name:12} {mine['f1_macro']:7.4f} {'-':>8} {mine['train_seconds']:11.2f} {mine['fit_seconds']:9.2f} {'-':>13} {'-':>8} {'-':>6} "
                  f"{mine['docs_per_s']:10.0f} {'-':>12} {'-':>10} {mine['peak_rss_mb']:6.0f} {'-':>8}")
    print("ta train s: the whole `ta tagger train` process (start-up, reading and parsing the file, training, saving);"
          " ta fit s: its training task alone, like the peer's train s (the fit of its pipeline on texts in memory)")
    print("MB: peak resident memory of one process (ta: the larger of training and tagging; the peer: its whole run)")


if __name__ == "__main__":
    main()
