#!/usr/bin/env bash
# Tagger (text classifier) benchmark: `ta tagger train` and `ta tagger tag` beside the peer
# kit's scikit-learn pipeline (bench_classifier.py --peer sklearn) on the same every-5th split
# of labelled.jsonl (spam vs ham) in one run; prints F1 macro, training seconds and prediction
# docs/s of both and the ratios. Not part of CI (needs Python, the registries and minutes).
#
# usage: scripts/bench/classifier/run.sh [--configs hashing-lr,tfidf-lr,count-lr,hashing-svm]
# env:   PEERS_DIR, PEERS_VENV, CORPORA as in scripts/bench/anonymizer/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
[ -f "$PEERS_DIR/bench_classifier.py" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
[ -f "$CORPORA/labelled.jsonl" ] || bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
echo "== cargo build --release" >&2
cargo build --release --quiet --bin ta
TA="${CARGO_TARGET_DIR:-$ROOT/target}/release/ta"
exec "$PEERS_VENV/bin/python" "$ROOT/scripts/bench/classifier/bench.py" "$TA" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA/labelled.jsonl" "$ROOT/.cache/peers/work-classifier" "$@"
