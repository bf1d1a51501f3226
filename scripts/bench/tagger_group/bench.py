"""Driver of scripts/bench/tagger_group/run.sh: splits the corpus (held out: line index % 5 == 0),
imports the training part with its label as fact TEEMA, trains a tagger group with ta (local mode,
release build, all cores), runs the sklearn peers and the reference's decomposition re-created in
scikit-learn on the same split, then tags held-out documents
through `ta serve` and prints one table. F1 macro is computed the same way for every side
(sklearn's f1_score)."""
import argparse
import json
import os
import resource
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, f1_macro, percentile, run, split  # noqa: E402


def facts_file(train, work):
    """The training part as documents holding their label as fact TEEMA."""
    path = os.path.join(work, "train_facts.jsonl")
    with open(train) as f, open(path, "w") as out:
        for line in f:
            d = json.loads(line)
            fact = {"fact": "TEEMA", "str_val": d["label"], "doc_path": "text", "spans": "[[0, 0]]"}
            out.write(json.dumps({"text": d["text"], "texta_facts": [fact]}) + "\n")
    return path


PEER_CONFIGS = {"hashing": "classifier_hashing_lr.json", "tfidf": "classifier_tfidf_lr.json"}


def ta_side(ta, work, train, test, min_samples, vectorizer):
    """Trains the group; the label of each held-out document is its most probable positive member
    (the highest p(true) when no member says yes)."""
    ta.cli("import", "--project", ta.project, "--index", "modules", "--description", "modules", facts_file(train, work))
    start = time.perf_counter()
    group = json.loads(ta.cli("tagger-group", "create", "--project", ta.project, "--description", "modules", "--fact", "TEEMA",
                              "--field", "text", "--min-samples", min_samples, "--index", "modules",
                              "--vectorizer", vectorizer))
    train_s = time.perf_counter() - start
    members = json.loads(ta.cli("tagger-group", "models", group["id"]))
    docs = [json.loads(l) for l in open(test)]
    texts = os.path.join(work, "texts.jsonl")
    with open(texts, "w") as f:
        f.writelines(json.dumps(d["text"]) + "\n" for d in docs)
    scores = [[] for _ in docs]  # per document: (positive, p(true), tag) of every member
    for m in members:
        with open(texts) as inp:
            for i, line in enumerate(ta.cli("tagger", "tag", m["id"], stdin=inp).splitlines()):
                t = json.loads(line)
                p_true = t["probability"] if t["result"] else 1 - t["probability"]
                scores[i].append((t["result"], p_true, m["tag"]))
    predicted = [max(s)[2] for s in scores]
    f1, acc = f1_macro([d["label"] for d in docs], predicted)
    return group, {"train_seconds": train_s, "f1_macro": f1, "accuracy": acc, "members": len(members)}


def peer_multiclass(venv, peers, corpus, vectorizer):
    cfg = os.path.join(peers, "configs", PEER_CONFIGS[vectorizer])
    out = run([os.path.join(venv, "bin", "python"), os.path.join(peers, "bench_classifier.py"), corpus, cfg, "--peer", "sklearn"])
    return json.loads(out.strip().splitlines()[-1])


def peer_one_vs_rest(train, test, vectorizer):
    """The group's decomposition in scikit-learn: one n-gram (hashed, or TF-IDF) logistic regression
    per label against the rest, fitted in parallel on all cores; the label is the most probable one."""
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    tr = [json.loads(l) for l in open(train)]
    te = [json.loads(l) for l in open(test)]
    vectors = HashingVectorizer(ngram_range=(1, 2)) if vectorizer == "hashing" else TfidfVectorizer(ngram_range=(1, 2))
    model = make_pipeline(vectors,
                          OneVsRestClassifier(LogisticRegression(max_iter=1000), n_jobs=os.cpu_count()))
    start = time.perf_counter()
    model.fit([d["text"] for d in tr], [d["label"] for d in tr])
    seconds = time.perf_counter() - start
    f1, acc = f1_macro([d["label"] for d in te], list(model.predict([d["text"] for d in te])))
    return {"train_seconds": seconds, "f1_macro": f1, "accuracy": acc}


def emulation(train, test, vectorizer):
    """The reference's tagger-group decomposition re-created in scikit-learn (the "2.10.3 emulation"
    of models.md 5.1): per label, its documents against a random sample of as many others
    (negative_multiplier 1), lower-cased whitespace tokens, n-grams (1, 2) (TF-IDF: min_df 5), an
    L1 LinearSVC selecting features, then logistic regression; the label is the most probable one."""
    import random
    import numpy as np
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
    from sklearn.feature_selection import SelectFromModel
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC
    tr = [json.loads(l) for l in open(train)]
    te = [json.loads(l) for l in open(test)]
    labels = sorted({d["label"] for d in tr})
    tokens = dict(tokenizer=str.split, token_pattern=None)
    start = time.perf_counter()
    members = []
    for label in labels:
        pos = [d["text"] for d in tr if d["label"] == label]
        neg = random.Random(1).sample([d["text"] for d in tr if d["label"] != label], len(pos))
        vectors = (HashingVectorizer(ngram_range=(1, 2), **tokens) if vectorizer == "hashing"
                   else TfidfVectorizer(ngram_range=(1, 2), min_df=5, **tokens))
        model = make_pipeline(vectors, SelectFromModel(LinearSVC(penalty="l1", dual=False)), LogisticRegression())
        members.append(model.fit(pos + neg, [1] * len(pos) + [0] * len(neg)))
    seconds = time.perf_counter() - start
    texts = [d["text"] for d in te]
    p_true = np.column_stack([m.predict_proba(texts)[:, 1] for m in members])
    f1, acc = f1_macro([d["label"] for d in te], [labels[i] for i in p_true.argmax(1)])
    return {"train_seconds": seconds, "f1_macro": f1, "accuracy": acc}


def tag_text_over_http(ta, group, test, n):
    """tag_text for the first `n` held-out documents (after 5 warm-up calls): the share whose top tag
    is the document's label, the share with no tag, and the latencies in milliseconds."""
    docs = [json.loads(l) for l in open(test)][:n]
    served = ta.serve()
    try:
        path = f"/projects/{ta.project}/tagger_groups/{group['id']}/tag_text/"
        body = lambda d: {"text": d["text"], "lemmatize": False, "use_ner": False}
        for d in docs[:5]:
            served.call("POST", path, body(d))
        hits, empty, latencies = 0, 0, []
        for d in docs:
            start = time.perf_counter()
            tags = served.call("POST", path, body(d))
            latencies.append((time.perf_counter() - start) * 1000)
            hits += bool(tags) and tags[0]["tag"] == d["label"]
            empty += not tags
    finally:
        served.stop()
    return {"top1": hits / len(docs), "no_tag": empty / len(docs), "p50_ms": percentile(latencies, 0.5),
            "p99_ms": percentile(latencies, 0.99), "docs": len(docs)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("peers"), p.add_argument("venv"), p.add_argument("corpus"), p.add_argument("work")
    p.add_argument("--min-samples", default="10", help="documents a module needs to get a tagger")
    p.add_argument("--latency-docs", type=int, default=50)
    p.add_argument("--vectorizer", choices=sorted(PEER_CONFIGS), default="hashing",
                   help="the members' vectorizer; the peers use the same kind")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    train, test = split(a.corpus, a.work)
    ta = Ta(a.ta, a.work)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; vectorizer {a.vectorizer}")
    group, mine = ta_side(ta, a.work, train, test, a.min_samples, a.vectorizer)
    multi = peer_multiclass(a.venv, a.peers, a.corpus, a.vectorizer)
    ovr = peer_one_vs_rest(train, test, a.vectorizer)
    emulated = emulation(train, test, a.vectorizer)
    print(f"{'side':34} {'train s':>8} {'F1 macro':>9} {'accuracy':>9}")
    print(f"{'ta tagger group (' + str(mine['members']) + ' members)':34} {mine['train_seconds']:8.2f} {mine['f1_macro']:9.4f} {mine['accuracy']:9.4f}")
    print(f"{'sklearn one-vs-rest (all cores)':34} {ovr['train_seconds']:8.2f} {ovr['f1_macro']:9.4f} {ovr['accuracy']:9.4f}")
    print(f"{'2.10.3 emulation (sample, L1, LR)':34} {emulated['train_seconds']:8.2f} {emulated['f1_macro']:9.4f} {emulated['accuracy']:9.4f}")
    print(f"{'sklearn multiclass (peer kit)':34} {multi['train_seconds']:8.2f} {multi['f1_macro']:9.4f} {multi['accuracy']:9.4f}")
    print(f"ta F1 - peer multiclass F1: {100 * (mine['f1_macro'] - multi['f1_macro']):+.1f} points (provisional acceptance: >= -5); "
          f"ta F1 - emulation F1: {100 * (mine['f1_macro'] - emulated['f1_macro']):+.1f} points")
    http = tag_text_over_http(ta, group, test, a.latency_docs)
    print(f"tag_text over HTTP, {http['docs']} held-out documents (lemmatize and use_ner off): top-1 tag = label in "
          f"{100 * http['top1']:.0f}%, no tag in {100 * http['no_tag']:.0f}%; latency p50 {http['p50_ms']:.1f} ms, "
          f"p99 {http['p99_ms']:.1f} ms")
    print(f"peak RSS of this driver and its children: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
