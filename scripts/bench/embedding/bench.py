"""Driver of scripts/bench/embedding/run.sh. Per corpus: trains with ta (local mode, release
build) on one thread and on two, dumps ta's processed and phrased sentences, its phrases and its
vocabulary, runs gensim on those same sentences (gensim_side.py, seeds 1 and 2) and the peer kit's
texta-embedding (bench_embedding.py) on the corpus, queries predict_similar through `ta serve`,
and prints the agreement and speed figures (see run.sh)."""
import argparse
import datetime
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, die, percentile, run, run_measured  # noqa: E402


def load():
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} cores"


def ta_train(ta, corpus, cfg, threads):
    """`ta embedding train` on the corpus: (embedding, wall seconds, peak RSS MB)."""
    out, seconds, rss = run_measured([ta.binary, "--json", "embedding", "train", "--project", str(ta.project),
                                      "--description", f"threads-{threads}", "--field", "text", "--file", corpus,
                                      "--dims", str(cfg.get("num_dimensions", 100)),
                                      "--min-freq", str(cfg.get("min_freq", 5)), "--threads", str(threads)], env=ta.env)
    model = json.loads(out)
    if model["task"]["status"] != "completed":
        die(f"ta training failed: {model['task']}")
    return model, seconds, rss


def task_seconds(model):
    """Seconds the training task ran: phraser, vocabulary, word2vec and saving, after the corpus was read."""
    at = lambda key: datetime.datetime.fromisoformat(model["task"][key].replace("Z", "+00:00"))  # noqa: E731
    return (at("time_completed") - at("time_started")).total_seconds()


def overlap(a, b, words):
    """Mean share of common neighbours (phrases compared with `_` as a space)."""
    norm = lambda xs: {x.replace("_", " ") for x in xs}  # noqa: E731
    shared = [len(norm(a[w]) & norm(b[w])) / max(len(a[w]), 1) for w in words if w in a and w in b]
    return sum(shared) / len(shared) if shared else 0.0


def bench_corpus(a, name, corpus, cfg):
    work = os.path.join(a.work, name)
    os.makedirs(work)
    with open(corpus) as f:
        docs = sum(1 for line in f if line.strip())
    ta = Ta(a.ta, work)
    print(f"\n== {name}: {docs} documents; {load()}", flush=True)
    one, one_s, one_rss = ta_train(ta, corpus, cfg, 1)
    two, two_s, two_rss = ta_train(ta, corpus, cfg, 2)
    eid = one["id"]
    files = {k: os.path.join(work, f"{k}.jsonl") for k in ("processed", "phrased")}
    for key, extra in (("processed", []), ("phrased", ["--embedding", eid])):
        with open(files[key], "w") as f:
            f.write(ta.cli("embedding", "sentences", "--field", "text", "--file", corpus, *extra))
    ta_phrases = {p["phrase"]: p["score"] for p in json.loads(ta.cli("embedding", "phrases", eid))}
    ta_vocab = {w["word"]: w["count"] for w in json.loads(ta.cli("embedding", "vocabulary", eid))}
    words = list(ta_vocab)[:100]
    words_file = os.path.join(work, "words.json")
    json.dump(words, open(words_file, "w"))

    env = dict(os.environ, PYTHONHASHSEED="0")
    out, _, gensim_rss = run_measured([os.path.join(a.venv, "bin", "python"), os.path.join(os.path.dirname(__file__), "gensim_side.py"),
                                                 files["processed"], files["phrased"], a.config, words_file], env=env)
    g = json.loads(out)
    peer = json.loads(run([os.path.join(a.venv, "bin", "python"), os.path.join(a.peers, "bench_embedding.py"), corpus, a.config]).strip().splitlines()[-1])

    server = ta.serve()
    path = f"/projects/{ta.project}/embeddings/{eid}/predict_similar/"
    ta_neighbours = {w: [s["phrase"] for s in server.call("POST", path, {"positives": [w], "output_size": 10})] for w in words}
    times = []
    for _ in range(a.rounds):
        for w in words:
            start = time.perf_counter()
            server.call("POST", path, {"positives": [w], "output_size": 10})
            times.append((time.perf_counter() - start) * 1000)
    server.stop()

    both = set(ta_phrases) & set(g["phrases"])
    score_diff = max((abs(ta_phrases[p] - g["phrases"][p]) / abs(g["phrases"][p]) for p in both), default=0.0)
    vocab_diff = len(set(ta_vocab) ^ set(g["vocabulary"])) + sum(1 for w in set(ta_vocab) & set(g["vocabulary"]) if ta_vocab[w] != g["vocabulary"][w])
    g1, g2 = g["runs"]["1"], g["runs"]["2"]
    ta_g1 = overlap(ta_neighbours, g1["neighbours"], words)
    g1_g2 = overlap(g1["neighbours"], g2["neighbours"], words)
    ta_g2 = overlap(ta_neighbours, g2["neighbours"], words)
    gensim_s = g["phrase_seconds"] + g1["train_seconds"]
    one_task, two_task = task_seconds(one), task_seconds(two)
    verdict = lambda ok: "ok" if ok else "FAIL"  # noqa: E731
    print(f"phraser bigrams: ta {len(ta_phrases)}, gensim {len(g['phrases'])}, differences {len(set(ta_phrases) ^ set(g['phrases']))} "
          f"(largest relative score difference {score_diff:.1e}) {verdict(set(ta_phrases) == set(g['phrases']))}")
    print(f"phrased sentences differing from gensim's phrasing of the same input: {g['phrased_differences']}")
    print(f"vocabulary: ta {len(ta_vocab)} words, gensim {len(g['vocabulary'])}, words or counts differing {vocab_diff} {verdict(vocab_diff == 0)}")
    print(f"10 nearest of the 100 most frequent words, mean overlap: ta vs gensim seed 1 {ta_g1:.3f} (vs seed 2 {ta_g2:.3f}); "
          f"gensim seed 1 vs seed 2 {g1_g2:.3f}; floor {g1_g2 - 0.10:.3f} {verdict(ta_g1 >= g1_g2 - 0.10)}")
    print(f"training on 1 thread, phrases + word2vec on the processed sentences: ta {docs / one_task:.0f} docs/s ({one_task:.2f} s), "
          f"gensim {docs / gensim_s:.0f} docs/s ({g['phrase_seconds']:.2f} s phrases + {g1['train_seconds']:.2f} s word2vec, {gensim_rss:.0f} MB): "
          f"ta/gensim {gensim_s / one_task:.2f}x {verdict(one_task <= gensim_s)}")
    print(f"training on 1 thread, whole run from the JSONL file: ta {docs / one_s:.0f} docs/s ({one_s:.2f} s `ta embedding train`, {one_rss:.0f} MB), "
          f"texta-embedding {peer['docs_per_s']:.0f} docs/s ({peer['seconds']:.2f} s, {peer['peak_rss_mb']:.0f} MB): "
          f"ta/texta-embedding {docs / one_s / peer['docs_per_s']:.2f}x")
    print(f"training on 2 threads: ta {docs / two_task:.0f} docs/s ({two_task:.2f} s; whole run {two_s:.2f} s, {two_rss:.0f} MB): "
          f"speed-up {one_task / two_task:.2f}x on 2 cores (whole run {one_s / two_s:.2f}x); vocabulary {two['vocab_size']} (1 thread: {one['vocab_size']})")
    print(f"predict_similar over HTTP (ta serve, output_size 10, {len(times)} requests): "
          f"p50 {percentile(times, 0.5):.2f} ms, p99 {percentile(times, 0.99):.2f} ms", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("peers"), p.add_argument("venv"), p.add_argument("corpora"), p.add_argument("work")
    p.add_argument("--corpora", dest="names", default="et,en", help="corpus names (NAME.jsonl under CORPORA)")
    p.add_argument("--rounds", type=int, default=5, help="predict_similar passes over the 100 query words")
    a = p.parse_args()
    a.config = os.path.join(a.peers, "configs", "embedding_w2v.json")
    cfg = json.load(open(a.config))
    fixed = {"embedding_type": "W2VEmbedding", "window_size": 5, "num_epochs": 5, "use_phraser": True}
    if any(cfg.get(k, v) != v for k, v in fixed.items()):
        die(f"ta trains word2vec with window 5, 5 epochs and the phraser (the reference's fixed values); the config asks {cfg}")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    for name in a.names.split(","):
        corpus = os.path.join(a.corpora, f"{name}.jsonl")
        if not os.path.exists(corpus):
            die(f"no corpus {corpus}")
        bench_corpus(a, name, corpus, cfg)
    print(f"\n{load()}")


if __name__ == "__main__":
    main()
