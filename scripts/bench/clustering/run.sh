#!/usr/bin/env bash
# Topic analyzer benchmark: `ta topic-analyzer create` (TF-IDF, k-means, seed 10) beside
# scikit-learn's KMeans (k-means++, 10 restarts, 300 iterations, tol 1e-4, random_state 10)
# on the same TF-IDF vectors, built in Python as ta builds them (the text processor's stop
# lists, gensim's Dictionary.filter_extremes and TfidfModel). Prints the seconds of both, their
# ratio, and the adjusted Rand index between ta's clusters and scikit-learn's. ta's time is its
# whole run (reading the index, tokens, vectors, k-means, similarity, significant words); a run
# with one cluster is timed too, as the part that is not k-means. ta's k-means alone also runs
# on the very vectors built in Python (ta-cluster's kmeans_file example). Not part of CI (needs
# Python, the registries and minutes).
#
# usage: scripts/bench/clustering/run.sh [--docs 20000] [--clusters 10] [--corpus en.jsonl]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
cargo build --release --quiet -p ta-cluster --example kmeans_file
export KMEANS_FILE="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/kmeans_file"
run_driver scripts/bench/clustering/bench.py . work-clustering "$@"
