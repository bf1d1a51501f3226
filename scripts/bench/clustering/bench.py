"""Topic analyzer benchmark driver (see run.sh): ta's clustering beside scikit-learn's KMeans
on the same TF-IDF vectors, with the adjusted Rand index of the two labelings: ta's k-means
alone (the `kmeans_file` example of ta-cluster, env KMEANS_FILE) on the vectors built here, and
ta's whole run (`ta topic-analyzer create`) beside this script's vectorizing and fit."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

from gensim import corpora, matutils, models
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

TA, PEERS_DIR, VENV, CORPORA, WORK = sys.argv[1:6]
ap = argparse.ArgumentParser()
ap.add_argument("--docs", type=int, default=20000)
ap.add_argument("--clusters", type=int, default=10)
ap.add_argument("--corpus", default="en.jsonl")
args = ap.parse_args(sys.argv[6:])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ENV = dict(os.environ, TA_ADMIN_PASSWORD="bench-Pass-1", TA_CONFIG_DIR=os.path.join(WORK, "config"))
for key in ("TA_SERVER", "TA_TOKEN", "TA_SEARCH_URL"):
    ENV.pop(key, None)


def ta(data, *argv):
    p = subprocess.run([TA, "--data-dir", data, *argv], capture_output=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}: {p.stderr.decode()[-2000:]}")
    return p.stdout.decode()


def stop_words():
    """ta's built-in stop lists (the text processor's)."""
    words = set()
    res = os.path.join(ROOT, "crates/ta-classifier/src/resources")
    for name in ("stopwords_en.txt", "stopwords_et.txt", "stopwords_ru.txt", "punctuation.txt"):
        with open(os.path.join(res, name), encoding="utf-8") as f:
            words |= {w for w in (line.rstrip("\n") for line in f) if w and not w.startswith("#")}
    return words


TAGS = re.compile(r"<([^>]+)>")


def tokens(text, stop):
    """collection.md §5.4 rule 2: lower-cased, split, stop words out; tags stripped, tokens
    shorter than 2 and numbers dropped."""
    kept = " ".join(t for t in text.lower().split() if t not in stop)
    return [t for t in TAGS.sub("", kept).split() if len(t) >= 2 and not t.isnumeric()]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    with open(os.path.join(CORPORA, args.corpus), encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()][: args.docs]
    path = os.path.join(WORK, "docs.jsonl")
    with open(path, "w", encoding="utf-8") as out:
        for i, t in enumerate(texts):
            out.write(json.dumps({"text": t, "n": i}, ensure_ascii=False) + "\n")
    data = os.path.join(WORK, "data")
    ta(data, "project", "create", "--title", "bench", "--json")
    ta(data, "import", "--project", "1", "--index", "bench", "--description", "d", path, "--json")
    order = {}
    for line in ta(data, "search", "--project", "1", "--index", "bench", '{"match_all": {}}').splitlines():
        hit = json.loads(line)
        order[hit["_id"]] = hit["_source"]["n"]

    def run_ta(k):
        start = time.monotonic()
        out = json.loads(ta(data, "topic-analyzer", "create", "--project", "1", "--field", "text",
                            "--num-cluster", str(k), "--document-limit", str(len(texts)), "--json"))
        return time.monotonic() - start, out["id"]

    overhead, _ = run_ta(1)
    ta_seconds, cid = run_ta(args.clusters)
    view = json.loads(ta(data, "topic-analyzer", "clusters", str(cid), "--project", "1", "--json"))
    ta_labels = [0] * len(texts)
    for label, cluster in enumerate(view["clusters"]):
        for doc in cluster["documents"]:
            ta_labels[order[doc]] = label

    start = time.monotonic()
    stop = stop_words()
    docs = [tokens(t, stop) for t in texts]
    dictionary = corpora.Dictionary(docs)
    dictionary.filter_extremes(no_below=1, no_above=0.8, keep_n=1000)
    bows = [dictionary.doc2bow(d) for d in docs]
    tfidf = models.TfidfModel(bows)
    x = matutils.corpus2csc(tfidf[bows], num_terms=len(dictionary)).T.tocsr()
    vectorize = time.monotonic() - start
    start = time.monotonic()
    km = KMeans(n_clusters=args.clusters, init="k-means++", n_init=10, max_iter=300, tol=1e-4, random_state=10)
    sk_labels = km.fit_predict(x)
    sk_seconds = time.monotonic() - start

    vectors = os.path.join(WORK, "vectors.txt")
    with open(vectors, "w") as out:
        out.write(f"{x.shape[0]} {x.shape[1]}\n")
        for r in range(x.shape[0]):
            lo, hi = x.indptr[r], x.indptr[r + 1]
            out.write(" ".join(f"{c}:{v!r}" for c, v in zip(x.indices[lo:hi], x.data[lo:hi].tolist())) + "\n")
    p = subprocess.run([os.environ["KMEANS_FILE"], vectors, str(args.clusters)], capture_output=True, check=True)
    same = json.loads(p.stdout)

    print(f"corpus {args.corpus}: {len(texts)} documents, {x.shape[1]} terms, {x.nnz} stored entries, k = {args.clusters}")
    print("k-means alone on the same TF-IDF vectors (k-means++, 10 restarts, 300 iterations, tol 1e-4, seed 10):")
    print(f"  ta-cluster:               {same['seconds']:8.2f} s")
    print(f"  scikit-learn KMeans fit:  {sk_seconds:8.2f} s")
    print(f"  ratio ta / scikit-learn:  {same['seconds'] / sk_seconds:8.2f}")
    print(f"  inertia ta / scikit-learn: {same['inertia']:.1f} / {km.inertia_:.1f}")
    print(f"  adjusted Rand index:      {adjusted_rand_score(sk_labels, same['labels']):8.3f}")
    print("whole runs:")
    print(f"  ta topic-analyzer create: {ta_seconds:8.2f} s  (reading, tokens, vectors, k-means, similarity, significant words;"
          f" a 1-cluster run takes {overhead:.2f} s)")
    print(f"  python tokens + gensim TF-IDF + scikit-learn fit: {vectorize + sk_seconds:8.2f} s")
    print(f"  ratio:                    {ta_seconds / (vectorize + sk_seconds):8.2f}")
    print(f"  adjusted Rand index (ta's clusters vs scikit-learn's labels): {adjusted_rand_score(sk_labels, ta_labels):.3f}")


main()
