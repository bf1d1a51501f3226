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
# env:   PEERS_DIR, PEERS_VENV, CORPORA as in scripts/bench/anonymizer/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
[ -f "$PEERS_DIR/bench_embedding.py" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
[ -f "$CORPORA/en.jsonl" ] || bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
echo "== cargo build --release" >&2
cargo build --release --quiet --bin ta
TA="${CARGO_TARGET_DIR:-$ROOT/target}/release/ta"
exec "$PEERS_VENV/bin/python" "$ROOT/scripts/bench/embedding/bench.py" "$TA" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA" "$ROOT/.cache/peers/work-embedding" "$@"
