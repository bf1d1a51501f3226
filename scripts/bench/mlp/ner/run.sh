#!/usr/bin/env bash
# NER checks (ner.md §6): N1 port fidelity, N2 end-to-end agreement with the package,
# N3 speed, printed as one table. The package runs in a throw-away venv under .cache/.
#
# Usage: scripts/bench/mlp/ner/run.sh LANG [PARAGRAPHS]   (LANG: et; PARAGRAPHS default 1200)
# Env:   TA_MLP_DATA      the directory holding mlp/ (default: data/ in the checkout)
#        TA_NER_CORPORA   the unpacked help paragraphs, {et,en,ru}.jsonl
#                         (default: .cache/peers/corpora in the checkout)
# Exits non-zero when a figure misses its target.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
HERE="$ROOT/scripts/bench/mlp/ner"
LANG_="${1:?usage: run.sh LANG [PARAGRAPHS]}"
PARAGRAPHS="${2:-1200}"
DATA="${TA_MLP_DATA:-$ROOT/data}"
CORPORA="${TA_NER_CORPORA:-$ROOT/.cache/peers/corpora}"
WORK="$ROOT/.cache/ner-$LANG_"
VENV="$WORK/venv"
mkdir -p "$WORK"

case "$LANG_" in
  et)
    [[ -x "$VENV/bin/python" ]] || { python3.11 -m venv "$VENV" && "$VENV/bin/pip" install --quiet estnltk==1.7.5; }
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
    (cd "$ROOT" && cargo build --quiet --release -p ta-mlp --example ner_et)
    NER="$CARGO_TARGET_DIR/release/examples/ner_et"
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
  *)
    echo "run.sh: no NER checks for '$LANG_' here" >&2
    exit 2
    ;;
esac
