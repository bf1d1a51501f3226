#!/usr/bin/env python3
"""Differential check of ta's evaluator scores against scikit-learn (collection.md §6).

Random documents with a true and a predicted fact go into a fresh local data directory; for
each case ta scores them binary (one value of each fact) and multilabel (the sets of values)
with every average, and the answers are compared with scikit-learn's
precision_recall_fscore_support and accuracy_score on the same labels, together with the
confusion matrix and each class's scores. Class averages must be equal to the bit;
`samples` (summed in scan order) within 1e-12. Every difference is printed. Not part of CI
(needs scikit-learn: `pip install scikit-learn`).

usage: python3 scripts/check/evaluator_sklearn.py PATH_TO_TA [--cases N] [--seed N]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
from sklearn.metrics import accuracy_score, precision_recall_fscore_support  # noqa: E402
from sklearn.preprocessing import MultiLabelBinarizer  # noqa: E402


def ta(binary, data, *args):
    out = subprocess.run([binary, "--data-dir", data, *args, "--json"], capture_output=True, text=True,
                         env={**os.environ, "TA_ADMIN_PASSWORD": "check-Pass-1"})
    if out.returncode != 0:
        raise RuntimeError(f"ta {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def random_case(rng):
    classes = [f"c{i:02d}" for i in range(rng.randint(2, rng.choice([4, 12, 40])))]
    docs = []
    for _ in range(rng.randint(1, 80)):
        gold = sorted(set(rng.sample(classes, rng.randint(0, min(3, len(classes))))))
        pred = sorted(set(rng.sample(classes, rng.randint(0, min(3, len(classes))))))
        if rng.random() < 0.4:
            pred = gold[:]
        docs.append((gold, pred))
    return docs


def expected(docs, average, value=None):
    if value is not None:
        y_true = [int(value in g) for g, _ in docs]
        y_pred = [int(value in p) for _, p in docs]
        no_positive = not any(y_true) and not any(y_pred)
    else:
        classes = sorted({c for g, p in docs for c in g + p})
        mlb = MultiLabelBinarizer(classes=classes).fit([classes])
        y_true, y_pred = mlb.transform([g for g, _ in docs]), mlb.transform([p for _, p in docs])
        no_positive = not classes
    if no_positive:
        scores = [-1.0, -1.0, -1.0]
    else:
        scores = list(precision_recall_fscore_support(y_true, y_pred, average=average)[:3])
    return scores + [float(accuracy_score(y_true, y_pred))]


def check_case(binary, docs, case):
    problems = []
    with tempfile.TemporaryDirectory() as data:
        path = os.path.join(data, "docs.jsonl")
        with open(path, "w") as f:
            for i, (gold, pred) in enumerate(docs):
                facts = [{"fact": "GOLD", "str_val": v, "doc_path": "text", "spans": "[[0, 0]]"} for v in gold]
                facts += [{"fact": "PRED", "str_val": v, "doc_path": "text", "spans": "[[0, 0]]"} for v in pred]
                f.write(json.dumps({"text": f"doc {i}", "texta_facts": facts}) + "\n")
        ta(binary, data, "project", "create", "--title", "check")
        ta(binary, data, "import", "--project", "1", "--index", "check", "--description", "d", path)
        gold_values = sorted({c for g, _ in docs for c in g})
        pred_values = {c for _, p in docs for c in p}
        value = next((v for v in gold_values if v in pred_values), None)
        runs = [(a, None) for a in ["micro", "macro", "samples", "weighted"]]
        if value is not None:
            runs += [(a, value) for a in ["binary", "micro", "macro", "weighted"]]
        common = ["evaluator", "create", "--project", "1", "--true-fact", "GOLD", "--predicted-fact", "PRED"]
        for average, v in runs:
            if not gold_values or not pred_values:
                break
            extra = ["--true-fact-value", v, "--predicted-fact-value", v] if v is not None else []
            got = ta(binary, data, *common, "--average", average, *extra)
            scores = [got["precision"], got["recall"], got["f1_score"], got["accuracy"]]
            want = expected(docs, average, v)
            close = all(abs(a - b) <= 1e-12 for a, b in zip(scores, want))
            if scores != want and not (average == "samples" and close):
                problems.append(f"case {case} {average} value={v}: ta {scores} sklearn {want}")
            if v is None and got["id"] == 2 and len(set(gold_values) | pred_values) <= 30:
                results = ta(binary, data, "evaluator", "individual-results", str(got["id"]))["filtered_results"]
                for c, r in results.items():
                    want_c = expected(docs, "binary", c)
                    mine = [r["precision"], r["recall"], r["f1_score"], r["accuracy"]]
                    if mine != want_c:
                        problems.append(f"case {case} class {c}: ta {mine} sklearn {want_c}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ta")
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    problems = []
    for case in range(a.cases):
        problems += check_case(a.ta, random_case(rng), case)
    for p in problems:
        print(p)
    print(f"{a.cases} cases, {len(problems)} differences")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
