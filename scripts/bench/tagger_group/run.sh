#!/usr/bin/env bash
# Tagger group benchmark: labelled_et.jsonl (Estonian help paragraphs, 8 modules) on the every-5th
# split; the training part is imported with its module as fact TEEMA and `ta tagger-group create`
# trains one tagger per module (all cores). Beside it, in the same run, the peer kit's scikit-learn
# pipeline (bench_classifier.py --peer sklearn: one multiclass model, the BASELINE figure) and the
# same one-vs-rest decomposition in scikit-learn (all cores). Prints training seconds, F1 macro of
# the label of the most probable positive member against both peers, and, for 50 held-out
# documents through `ta serve`, how often tag_text's top tag is the document's module and its
# p50/p99 latency. Not part of CI (needs Python, the registries and minutes).
#
# usage: scripts/bench/tagger_group/run.sh [--min-samples 10] [--latency-docs 50] [--vectorizer hashing|tfidf]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
run_driver scripts/bench/tagger_group/bench.py labelled_et.jsonl work-tagger-group "$@"
