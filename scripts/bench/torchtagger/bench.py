"""Driver of scripts/bench/torchtagger/run.sh: splits the corpus (held out: line index % 5 == 0),
trains an embedding on the training part with ta, trains each neural architecture with several
seeds (local mode, release build), tags the held-out part, times a 10,000-document training, runs
the sklearn peer on the same file, and prints one table. F1 macro is sklearn's f1_score for all."""
import argparse
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, die, f1_macro, run, run_measured, split  # noqa: E402

# The acceptance lines of models.md §5.4: points below the sklearn peer's F1 macro.
ALLOWED_DROP = {"fastText": 0.08, "TextRNN": 0.12, "RCNN": 0.08}


def train(ta, arch, train_file, embedding, seed, epochs, optimizer, description):
    out, seconds, rss = run_measured(
        [ta.binary, "--json", "torchtagger", "train", "--project", str(ta.project), "--description", description,
         "--field", "text", "--label-field", "label", "--positive", "spam", "--architecture", arch,
         "--embedding", str(embedding), "--seed", str(seed), "--epochs", str(epochs), "--optimizer", optimizer,
         "--file", train_file],
        env=ta.env)
    return json.loads(out), seconds, rss


def tag(ta, model_id, texts, docs):
    with open(texts) as inp:
        out, seconds, rss = run_measured([ta.binary, "torchtagger", "tag", str(model_id)], env=ta.env, stdin=inp)
    predicted = [json.loads(line).get("result") for line in out.splitlines()]
    if len(predicted) != len(docs):
        die(f"tagged {len(predicted)} of {len(docs)} documents")
    return ["spam" if p == "true" else "ham" for p in predicted], len(docs) / seconds, rss


def ten_thousand(train_file, work):
    """The training part cycled to 10,000 documents (for the training-time line)."""
    lines = open(train_file).readlines()
    path = os.path.join(work, "train10k.jsonl")
    with open(path, "w") as f:
        f.writelines(lines[i % len(lines)] for i in range(10_000))
    return path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("peers"), p.add_argument("venv"), p.add_argument("corpus"), p.add_argument("work")
    p.add_argument("--architectures", default="fastText,TextRNN,RCNN")
    p.add_argument("--seeds", default="42,43,44")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--optimizer", default="adam", help="adam (ta's default) or sgd (the reference's)")
    p.add_argument("--no-timing", action="store_true", help="skip the 10,000-document training")
    p.add_argument("--no-peer", action="store_true", help="skip the sklearn peer")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    train_file, test_file = split(a.corpus, a.work)
    docs = [json.loads(line) for line in open(test_file)]
    truth = [d["label"] for d in docs]
    texts = os.path.join(a.work, "texts.jsonl")
    with open(texts, "w") as f:
        f.writelines(json.dumps({"text": d["text"]}) + "\n" for d in docs)
    ta = Ta(a.ta, a.work)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {len(docs)} held-out documents; "
          f"optimizer {a.optimizer}, {a.epochs} epochs")

    _, emb_seconds, _ = run_measured(
        [ta.binary, "--json", "embedding", "train", "--project", str(ta.project), "--description", "bench",
         "--field", "text", "--file", train_file], env=ta.env)
    embedding = json.loads(ta.cli("embedding", "list", "--project", ta.project))["results"][-1]["id"]
    print(f"embedding trained on the training part in {emb_seconds:.1f} s")

    peer = None
    if not a.no_peer:
        cfg = os.path.join(a.peers, "configs", "classifier_hashing_lr.json")
        out = run([os.path.join(a.venv, "bin", "python"), os.path.join(a.peers, "bench_classifier.py"), a.corpus, cfg,
                   "--peer", "sklearn"])
        peer = json.loads(out.strip().splitlines()[-1])
        print(f"sklearn peer (Hashing + LR), same run: F1 macro {peer['f1_macro']:.4f}, "
              f"train {peer['train_seconds']:.1f} s, {peer['docs_per_s']:.0f} docs/s")
    reference_f1 = peer["f1_macro"] if peer else 0.954

    print(f"{'arch':9} {'seed':>5} {'F1':>7} {'acc':>7} {'classes':>8} {'train s':>8} {'RSS MB':>7} {'tag docs/s':>11} {'tag RSS':>8}")
    summary = []
    for arch in a.architectures.split(","):
        f1s = []
        for seed in map(int, a.seeds.split(",")):
            model, seconds, rss = train(ta, arch, train_file, embedding, seed, a.epochs, a.optimizer, f"spam-{arch}-{seed}")
            if model["task"]["status"] != "completed":
                die(f"{arch} seed {seed}: {model['task']}")
            predicted, rate, tag_rss = tag(ta, model["id"], texts, docs)
            f1, acc = f1_macro(truth, predicted)
            f1s.append(f1)
            print(f"{arch:9} {seed:5} {f1:7.4f} {acc:7.4f} {len(set(predicted)):8} {seconds:8.1f} {rss:7.0f} "
                  f"{rate:11.0f} {tag_rss:8.0f}", flush=True)
            if len(set(predicted)) < 2:
                print(f"  FAIL: {arch} seed {seed} predicts a single class")
        median, spread = statistics.median(f1s), max(f1s) - min(f1s)
        floor = reference_f1 - ALLOWED_DROP[arch]
        verdict = "ok" if median >= floor and spread <= 0.03 else "FAIL"
        summary.append(f"{arch:9} median F1 {median:.4f} (floor {floor:.4f}), seed spread {spread * 100:.1f} points: {verdict}")
    print("\n".join(summary))

    if not a.no_timing:
        big = ten_thousand(train_file, a.work)
        for arch in a.architectures.split(","):
            _, seconds, rss = train(ta, arch, big, embedding, 42, 5, a.optimizer, f"timing-{arch}")
            verdict = "" if arch == "TextRNN" else ("ok" if seconds < 600 else "FAIL")
            print(f"{arch:9} 10,000 documents x 5 epochs: {seconds:.0f} s, peak RSS {rss:.0f} MB {verdict}", flush=True)


if __name__ == "__main__":
    main()
