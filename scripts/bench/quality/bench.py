"""Driver of scripts/bench/quality/run.sh: the model quality suite. For every task and seed it draws
a held-out test part and a balanced training sample (as taggers train: as many texts of each class),
writes them as labelled JSONL, and trains on them, in the same run: ta (local mode, release build:
taggers, tagger groups, torch taggers), the reference tagger (texta-tagger's Tagger, in this process)
and scikit-learn (on the same balanced sample, and on all the non-test data). Every side is scored
on the same test part with scikit-learn's f1_score; the table gives the median over the seeds and
the spread (max - min), training seconds and prediction docs/s (medians)."""
import argparse
import collections
import json
import os
import random
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tabench import Ta, die, f1_macro, run_measured  # noqa: E402

TOPICS = ["scalc", "swriter", "simpress", "sbasic", "smath"]
# (vectorizer, classifier) of ta's CLI and the reference's names.
CONFIGS = {
    "tfidf-lr": ("tfidf", "logistic"), "count-lr": ("count", "logistic"), "hashing-lr": ("hashing", "logistic"),
    "tfidf-svm": ("tfidf", "linearsvc"), "count-svm": ("count", "linearsvc"), "hashing-svm": ("hashing", "linearsvc"),
}
REF_NAMES = {"tfidf": "TfIdf Vectorizer", "count": "Count Vectorizer", "hashing": "Hashing Vectorizer",
             "logistic": "Logistic Regression", "linearsvc": "LinearSVC"}
ARCHITECTURES = ["fastText", "TextRNN", "RCNN"]


def tasks(corpora, langs):
    """(name, corpus file, label of a document or None, positive label or None for multiclass)."""
    out = []
    for lang in langs:
        if lang == "mail":
            out.append(("mail-binary", "labelled.jsonl", lambda d: d["label"], "spam"))
            continue
        help_module = lambda d: d["module"] if d.get("source") == "libreoffice-help" else None
        out.append((f"{lang}-binary", f"{lang}.jsonl",
                    lambda d, m=help_module: None if m(d) is None else ("scalc" if m(d) == "scalc" else "rest"), "scalc"))
        out.append((f"{lang}-topics", f"{lang}.jsonl", lambda d, m=help_module: m(d) if m(d) in TOPICS else None, None))
    return [(name, os.path.join(corpora, f), label, pos) for name, f, label, pos in out]


def draw(corpus, label_of, seed, size, work):
    """Per class (its texts sorted, then shuffled by `seed`): the first `test` texts are the test part,
    the next size/classes the balanced training sample; every non-test text is in `all`, and
    `all_balanced` holds as many non-test texts of each class as the smallest class has (what a
    tagger trained through the API samples from all the data: positives, as many negatives). Writes
    one JSONL file per part under `work` and returns their paths and the labels."""
    by_label = collections.defaultdict(set)
    for line in open(corpus):
        d = json.loads(line)
        label = label_of(d)
        if label is not None:
            by_label[label].add(d["text"])
    labels = sorted(by_label)
    test_n = 300 if len(labels) == 2 else 100
    per_class = size // len(labels)
    parts = {"train": [], "test": [], "all": [], "all_balanced": []}
    smallest = min(len(texts) for texts in by_label.values()) - test_n
    for label in labels:
        texts = sorted(by_label[label])
        random.Random(f"{seed}-{label}").shuffle(texts)
        if len(texts) < test_n + 50:
            die(f"{corpus}: {label} has {len(texts)} texts")
        parts["test"] += [(t, label) for t in texts[:test_n]]
        parts["train"] += [(t, label) for t in texts[test_n:test_n + per_class]]
        parts["all"] += [(t, label) for t in texts[test_n:]]
        parts["all_balanced"] += [(t, label) for t in texts[test_n:test_n + smallest]]
    paths = {}
    for name, rows in parts.items():
        random.Random(seed).shuffle(rows)
        paths[name] = os.path.join(work, f"{name}.jsonl")
        with open(paths[name], "w") as f:
            f.writelines(json.dumps({"text": t, "label": l}, ensure_ascii=False) + "\n" for t, l in rows)
    return paths, labels


def read(path):
    rows = [json.loads(line) for line in open(path)]
    return [r["text"] for r in rows], [r["label"] for r in rows]


def texts_file(test, work):
    path = os.path.join(work, "texts.jsonl")
    texts, _ = read(test)
    with open(path, "w") as f:
        f.writelines(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts)
    return path


def ta_tagger(ta, paths, pos, config, work, tag, part="train"):
    vectorizer, classifier = CONFIGS[config]
    out, train_s, _ = run_measured([ta.binary, "--json", "tagger", "train", "--project", str(ta.project), "--description", tag,
                                    "--field", "text", "--label-field", "label", "--positive", pos, "--vectorizer", vectorizer,
                                    "--classifier", classifier, "--file", paths[part]], env=ta.env)
    model = json.loads(out)
    if model["task"]["status"] != "completed":
        die(f"{tag}: {model['task']}")
    _, truth = read(paths["test"])
    with open(texts_file(paths["test"], work)) as inp:
        out, seconds, _ = run_measured([ta.binary, "--json", "tagger", "tag", str(model["id"])], env=ta.env, stdin=inp)
    predicted = [pos if json.loads(line).get("result") else "rest" for line in out.splitlines()]
    return score(truth, predicted, train_s, len(truth) / seconds, features=model["num_features"])


def score(truth, predicted, train_s, docs_per_s, **extra):
    f1, acc = f1_macro(truth, predicted)
    return dict(f1=f1, acc=acc, train_s=train_s, docs_per_s=docs_per_s, classes=len(set(predicted)), **extra)


def reference(paths, pos, vectorizer, classifier):
    """texta-tagger's Tagger trained on the balanced sample; tag_text per test text, as its API does."""
    from texta_tagger.tagger import Tagger
    texts, labels = read(paths["train"])
    sample = collections.defaultdict(list)
    for t, l in zip(texts, labels):
        sample[l].append(t)
    tagger = Tagger(vectorizer=REF_NAMES[vectorizer], classifier=REF_NAMES[classifier])
    start = time.perf_counter()
    tagger.train(dict(sample), pos_label=pos)
    train_s = time.perf_counter() - start
    test, truth = read(paths["test"])
    start = time.perf_counter()
    predicted = [tagger.tag_text(t)["prediction"] for t in test]
    return score(truth, predicted, train_s, len(test) / (time.perf_counter() - start),
                 features=int(tagger.model.named_steps["feature_selector"].get_support().sum()))


def sklearn(paths, part, vectorizer, classifier, one_vs_rest=False):
    """The peer kit's scikit-learn pipeline (raw text, n-grams (1, 2), min_df 5, no selection) on `part`;
    on all the data with class weights inversely proportional to the class sizes (the test part is
    balanced, the data is not)."""
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC
    vec = {"hashing": lambda: HashingVectorizer(ngram_range=(1, 2)),
           "tfidf": lambda: TfidfVectorizer(ngram_range=(1, 2), min_df=5),
           "count": lambda: CountVectorizer(ngram_range=(1, 2), min_df=5)}[vectorizer]()
    weights = "balanced" if part == "all" else None
    clf = LinearSVC(class_weight=weights) if classifier == "linearsvc" else LogisticRegression(max_iter=1000, class_weight=weights)
    model = make_pipeline(vec, OneVsRestClassifier(clf) if one_vs_rest else clf)
    texts, labels = read(paths[part])
    start = time.perf_counter()
    model.fit(texts, labels)
    train_s = time.perf_counter() - start
    test, truth = read(paths["test"])
    start = time.perf_counter()
    predicted = list(model.predict(test))
    return score(truth, predicted, train_s, len(test) / (time.perf_counter() - start))


def ta_group(ta, paths, vectorizer, classifier, work, tag):
    """Imports the balanced sample with its label as fact TEEMA, trains a tagger group on it and tags
    the test part with the group (no lemmas, no entities); the prediction is the top tag."""
    facts = os.path.join(work, "train_facts.jsonl")
    texts, labels = read(paths["train"])
    with open(facts, "w") as f:
        for t, l in zip(texts, labels):
            fact = {"fact": "TEEMA", "str_val": l, "doc_path": "text", "spans": "[[0, 0]]"}
            f.write(json.dumps({"text": t, "texta_facts": [fact]}, ensure_ascii=False) + "\n")
    ta.cli("import", "--project", ta.project, "--index", tag, "--description", tag, facts)
    start = time.perf_counter()
    group = json.loads(ta.cli("tagger-group", "create", "--project", ta.project, "--description", tag, "--fact", "TEEMA",
                              "--field", "text", "--min-samples", 10, "--index", tag, "--vectorizer", vectorizer,
                              "--classifier", classifier))
    train_s = time.perf_counter() - start
    _, truth = read(paths["test"])
    with open(texts_file(paths["test"], work)) as inp:
        out, seconds, _ = run_measured([ta.binary, "--json", "tagger-group", "tag", str(group["id"]), "--no-lemmatize", "--no-ner"],
                                       env=ta.env, stdin=inp)
    predicted = []
    for line in out.splitlines():
        tags = json.loads(line)
        tags = tags.get("tags", tags) if isinstance(tags, dict) else tags
        predicted.append(max(tags, key=lambda t: t["probability"])["tag"] if tags else "(none)")
    return score(truth, predicted, train_s, len(truth) / seconds)


def ta_torch(ta, paths, pos, arch, seed, work, tag, epochs):
    args = [ta.binary, "--json", "torchtagger", "train", "--project", str(ta.project), "--description", tag, "--field", "text",
            "--label-field", "label", "--architecture", arch, "--seed", str(seed), "--file", paths["train"]]
    if pos:
        args += ["--positive", pos]
    if epochs:
        args += ["--epochs", str(epochs)]
    out, train_s, _ = run_measured(args, env=ta.env)
    model = json.loads(out)
    if model["task"]["status"] != "completed":
        die(f"{tag}: {model['task']}")
    _, truth = read(paths["test"])
    with open(texts_file(paths["test"], work)) as inp:
        out, seconds, _ = run_measured([ta.binary, "torchtagger", "tag", str(model["id"])], env=ta.env, stdin=inp)
    results = [json.loads(line).get("result") for line in out.splitlines()]
    predicted = [(pos if r == "true" else "rest") if pos else r for r in results]
    return score(truth, predicted, train_s, len(truth) / seconds, epochs=len(model.get("epoch_reports") or []))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ta"), p.add_argument("peers"), p.add_argument("venv"), p.add_argument("corpora"), p.add_argument("work")
    p.add_argument("--size", type=int, default=3000, help="training texts of the balanced sample")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--langs", default="et,en,ru,mail")
    p.add_argument("--parts", default="taggers,groups,torch")
    p.add_argument("--configs", default="tfidf-lr,count-lr,hashing-lr,tfidf-svm",
                   help="tagger configs; ta runs all, the reference the LR ones (its LinearSVC is a kernel SVC, slow)")
    p.add_argument("--group-config", default="tfidf-lr")
    p.add_argument("--architectures", default=",".join(ARCHITECTURES))
    p.add_argument("--epochs", type=int, default=0, help="torch tagger epochs (0: ta's default)")
    p.add_argument("--sklearn-hashing", action="store_true",
                   help="also fit scikit-learn on hashed features (2^20 columns: about a minute a fit here)")
    p.add_argument("--reference-svm", action="store_true", help="also run the reference's LinearSVC (kernel SVC)")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    ta = Ta(a.ta, a.work)
    parts = set(a.parts.split(","))
    seeds = [int(s) for s in a.seeds.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; size {a.size}; seeds {a.seeds}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    results = collections.defaultdict(list)  # (task, model, side) -> [row per seed]

    def record(key, row):
        results[key].append(row)
        print(f"  {key[0]:13} {key[1]:16} {key[2]:22} F1 {row['f1']:.4f} acc {row['acc']:.4f} classes {row['classes']} "
              f"train {row['train_s']:.2f} s {row['docs_per_s']:.0f} docs/s", flush=True)

    for name, corpus, label_of, pos in tasks(a.corpora, a.langs.split(",")):
        for seed in seeds:
            work = os.path.join(a.work, f"{name}-{seed}")
            os.makedirs(work)
            paths, labels = draw(corpus, label_of, seed, a.size, work)
            tag = f"{name}-{seed}"
            if pos and "taggers" in parts:
                for config in a.configs.split(","):
                    vectorizer, classifier = CONFIGS[config]
                    record((name, config, "ta"), ta_tagger(ta, paths, pos, config, work, f"{tag}-{config}"))
                    if classifier == "logistic" or a.reference_svm:
                        record((name, config, "reference"), reference(paths, pos, vectorizer, classifier))
                    if config == "tfidf-lr":
                        record((name, config, "ta, same request again"), ta_tagger(ta, paths, pos, config, work, f"{tag}-{config}-again"))
                        record((name, config, "ta all (balanced)"), ta_tagger(ta, paths, pos, config, work, f"{tag}-{config}-all", "all_balanced"))
                    if vectorizer != "hashing" or a.sklearn_hashing:
                        record((name, config, "sklearn balanced"), sklearn(paths, "train", vectorizer, classifier))
                        record((name, config, "sklearn all"), sklearn(paths, "all", vectorizer, classifier))
            if not pos and "groups" in parts:
                vectorizer, classifier = CONFIGS[a.group_config]
                model = f"group {a.group_config}"
                record((name, model, "ta"), ta_group(ta, paths, vectorizer, classifier, work, tag))
                if classifier == "logistic" or a.reference_svm:
                    record((name, model, "reference multiclass"), reference(paths, None, vectorizer, classifier))
                record((name, model, "sklearn ovr balanced"), sklearn(paths, "train", vectorizer, classifier, one_vs_rest=True))
                record((name, model, "sklearn ovr all"), sklearn(paths, "all", vectorizer, classifier, one_vs_rest=True))
            if "torch" in parts:
                for arch in a.architectures.split(","):
                    record((name, arch, "ta"), ta_torch(ta, paths, pos, arch, seed, work, f"{tag}-{arch}", a.epochs))

    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump({" | ".join(k): v for k, v in results.items()}, f, indent=1)
    print(f"\nload average {os.getloadavg()[0]:.1f}; F1 macro (groups: top-1 accuracy also) over {len(seeds)} seeds: "
          "median [spread = max - min]; times: medians")
    print(f"| task | model | side | F1 macro | spread | top-1 / acc | min classes | train s | predict docs/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (task, model, side), rows in results.items():
        f1s = [r["f1"] for r in rows]
        print(f"| {task} | {model} | {side} | {statistics.median(f1s):.4f} | {max(f1s) - min(f1s):.4f} | "
              f"{statistics.median(r['acc'] for r in rows):.4f} | {min(r['classes'] for r in rows)} | "
              f"{statistics.median(r['train_s'] for r in rows):.2f} | {statistics.median(r['docs_per_s'] for r in rows):.0f} |")


if __name__ == "__main__":
    main()
