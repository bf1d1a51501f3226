#!/usr/bin/env bash
# Tagger (text classifier) benchmark: `ta tagger train` and `ta tagger tag` beside the peer
# kit's scikit-learn pipeline (bench_classifier.py --peer sklearn) on the same every-5th split
# of labelled.jsonl (spam vs ham) in one run; prints F1 macro, training seconds and prediction
# docs/s of both and the ratios. Not part of CI (needs Python, the registries and minutes).
#
# usage: scripts/bench/classifier/run.sh [--configs hashing-lr,tfidf-lr,count-lr,hashing-svm] [--repeats 3]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
run_driver scripts/bench/classifier/bench.py labelled.jsonl work-classifier "$@"
