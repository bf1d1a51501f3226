"""The all-data rows of the quality suite for TF-IDF + LR alone, quickly: ta on every non-test text of the
binary tasks balanced as the API samples (every positive, as many negatives) beside ta on the 3,000 sample
and scikit-learn on the same balanced draw and on all the data with class weights; the same draws as
bench.py. usage (repository root): PEERS_VENV/bin/python scripts/bench/quality/all_data.py TA CORPORA WORK"""
import os
import shutil
import statistics
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import bench
from tabench import Ta
ta_binary, corpora, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
ta = Ta(ta_binary, work)
print(f"load average {os.getloadavg()[0]:.1f}")
for name, corpus, label_of, pos in bench.tasks(corpora, ["et", "en", "ru"]):
    if not pos:
        continue
    rows = {"ta 3,000": [], "ta all (balanced)": [], "sklearn all (balanced draw)": [], "sklearn all (weighted)": []}
    for seed in (1, 2, 3):
        w = f"{work}/{name}-{seed}"
        os.makedirs(w)
        paths, _ = bench.draw(corpus, label_of, seed, 3000, w)
        n = sum(1 for _ in open(paths["all_balanced"]))
        rows["ta 3,000"].append(bench.ta_tagger(ta, paths, pos, "tfidf-lr", w, f"{name}-{seed}")["f1"])
        rows["ta all (balanced)"].append(bench.ta_tagger(ta, paths, pos, "tfidf-lr", w, f"{name}-{seed}-all", "all_balanced")["f1"])
        rows["sklearn all (balanced draw)"].append(bench.sklearn(paths, "all_balanced", "tfidf", "logistic")["f1"])
        rows["sklearn all (weighted)"].append(bench.sklearn(paths, "all", "tfidf", "logistic")["f1"])
    for side, f1s in rows.items():
        print(f"| {name} | tfidf-lr | {side} ({n} texts, seed 3) | {statistics.median(f1s):.4f} | {max(f1s) - min(f1s):.4f} |", flush=True)
