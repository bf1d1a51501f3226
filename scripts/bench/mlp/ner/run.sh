#!/usr/bin/env bash
# NER checks N1–N3 (ner.md §6) for one language: sets up a throw-away venv with the package
# (.cache/ner-venv-LANG), builds the `ner_LANG` example (release), and runs LANG.py, which feeds
# the package's tokens and the texts to both and prints one table.
# Not part of CI (needs Python, the registries and minutes of machine time).
#
# usage: scripts/bench/mlp/ner/run.sh LANG        (ru)
# env:   TA_MLP_DATA  directory holding mlp/ (with mlp/LANG/ner/)  [data/]
#        PEERS_DIR    peer kit                   [../shared/peers next to the checkout]
#        CORPORA      corpora directory          [.cache/peers/corpora, built with the kit's corpora.sh]
# Fails (non-zero) when a target is missed, data is missing or a step fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$ROOT"
LANG_CODE=${1:?usage: run.sh LANG}
export TA_MLP_DATA=${TA_MLP_DATA:-$ROOT/data}
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
VENV="$ROOT/.cache/ner-venv-$LANG_CODE"

case "$LANG_CODE" in
  ru) REQUIREMENTS=(natasha==1.6.0 faker==40.54.0 pymorphy3 pymorphy3-dicts-ru==2.4.417150.4580142) ;;
  *) echo "run.sh: no NER checks for language $LANG_CODE" >&2; exit 1 ;;
esac
[ -d "$TA_MLP_DATA/mlp/$LANG_CODE/ner" ] ||
  { echo "run.sh: no $TA_MLP_DATA/mlp/$LANG_CODE/ner (run scripts/setup.sh)" >&2; exit 1; }
if [ ! -f "$CORPORA/$LANG_CODE.jsonl" ]; then
  echo "== corpora: $CORPORA" >&2
  bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "== venv: $VENV" >&2
  python3.11 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet "${REQUIREMENTS[@]}"
fi
echo "== cargo build --release" >&2
cargo build --release --quiet -p ta-mlp --example "ner_$LANG_CODE"
EXAMPLE="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/ner_$LANG_CODE"
nice "$VENV/bin/python" "$ROOT/scripts/bench/mlp/ner/$LANG_CODE.py" "$EXAMPLE" "$TA_MLP_DATA" "$CORPORA/$LANG_CODE.jsonl"
