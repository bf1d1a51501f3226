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
# usage: scripts/bench/tagger_group/run.sh [--min-samples 10] [--latency-docs 50]
# env:   PEERS_DIR, PEERS_VENV, CORPORA as in scripts/bench/anonymizer/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
[ -f "$PEERS_DIR/bench_classifier.py" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
[ -f "$CORPORA/labelled_et.jsonl" ] || bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
echo "== cargo build --release" >&2
cargo build --release --quiet --bin ta
TA="${CARGO_TARGET_DIR:-$ROOT/target}/release/ta"
exec "$PEERS_VENV/bin/python" "$ROOT/scripts/bench/tagger_group/bench.py" "$TA" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA/labelled_et.jsonl" "$ROOT/.cache/peers/work-tagger-group" "$@"
