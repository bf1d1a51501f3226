#!/usr/bin/env bash
# Neural tagger benchmark: `ta torchtagger train` (fastText, TextRNN, RCNN; 3 seeds each) on the
# every-5th split of labelled.jsonl (spam vs ham) with an embedding `ta embedding train` made from
# the training part, then `ta torchtagger tag` over the held-out part; beside it the peer kit's
# scikit-learn pipeline (bench_classifier.py --peer sklearn, the figure the acceptance line is
# drawn from) on the same file in the same run. Prints per architecture the median F1 macro, the
# seed spread, training seconds, tagging docs/s and peak RSS, and the time to train 10,000
# documents x 5 epochs. Not part of CI (needs Python, the registries and many minutes).
#
# usage: scripts/bench/torchtagger/run.sh [--architectures fastText,TextRNN,RCNN] [--seeds 42,43,44]
#                                         [--epochs 5] [--optimizer adam|sgd] [--no-timing] [--no-peer]
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
exec "$PEERS_VENV/bin/python" "$ROOT/scripts/bench/torchtagger/bench.py" "$TA" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA/labelled.jsonl" "$ROOT/.cache/peers/work-torchtagger" "$@"
