#!/usr/bin/env bash
# Embedding benchmark (issue 18): on et.jsonl and en.jsonl with the peer kit's
# configs/embedding_w2v.json, ta trains (`ta embedding train`, one thread, then two) and dumps the
# sentences it trained on (`ta embedding sentences`), its phrases and vocabulary; gensim trains on
# those same sentences in the same run, and the texta-embedding peer on the corpus. Prints: the
# phraser bigram set difference (must be 0), the vocabulary difference, the mean overlap of the 10
# nearest neighbours of the 100 most frequent words with gensim's beside gensim's own seed-1 vs
# seed-2 overlap, training docs/s of ta, gensim and texta-embedding on one thread, ta's speed-up on
# two threads, and predict_similar p50/p99 through `ta serve`. Not part of CI (needs Python, the
# registries and minutes). Run it under the benchmark lock so it never overlaps another benchmark:
#   flock /tmp/ta-bench.lock scripts/bench/embedding/run.sh
#
# usage: scripts/bench/embedding/run.sh [--corpora et,en] [--rounds 5]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
run_driver scripts/bench/embedding/bench.py . work-embedding "$@"
