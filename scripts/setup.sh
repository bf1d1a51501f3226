#!/usr/bin/env bash
# One-time setup of what ta needs beyond `cargo build`: the language-processing data.
#
# Fetches the pinned packages and the Vabamorf sources (scripts/mlp-fetch.sh), builds the
# runtime data (scripts/mlp-build-data.py) into data/mlp in the checkout, adds the shipped
# entity lists and English tag refiner (scripts/mlp-data/), then installs a copy in ta's
# default data directory (the platform data dir + /ta: ~/.local/share/ta/mlp on Linux),
# where ta finds it whatever data directory it is given (--data-dir, TA_DATA_DIR).
# With TA_MLP_DATA=DIR the data is built in DIR/mlp instead and nothing is installed: ta
# reads it from there through the same variable.
# Idempotent: steps whose results are present are skipped, so a second run takes seconds.
# The Russian dictionary export takes about 10 minutes the first time.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache/mlp"
INSTALL=""
if [[ -z "${TA_MLP_DATA:-}" ]]; then
  # ta's default data directory, as the dirs crate names it
  case "$(uname -s)" in
    Darwin) INSTALL="$HOME/Library/Application Support/ta/mlp" ;;
    *) INSTALL="${XDG_DATA_HOME:-$HOME/.local/share}/ta/mlp" ;;
  esac
fi
export TA_MLP_DATA="${TA_MLP_DATA:-$ROOT/data}"
OUT="$TA_MLP_DATA/mlp"

"$ROOT/scripts/mlp-fetch.sh" "$CACHE"

# step=output pairs of mlp-build-data.py; only the missing outputs are built.
steps=()
for pair in lang=lang/profiles.json en-tagger=en/tagger.bin en-lemma=en/lemma.json ru=ru/forms.tsv; do
  [[ -f "$OUT/${pair#*=}" ]] || steps+=("${pair%%=*}")
done
if ((${#steps[@]})); then
  MLP_BUILD_STEPS="$(IFS=,; echo "${steps[*]}")" nice -n 10 "$CACHE/venv/bin/python" "$ROOT/scripts/mlp-build-data.py" "$CACHE" "$OUT"
fi

mkdir -p "$OUT/entity_mapper" "$OUT/en"
cp -u "$ROOT"/scripts/mlp-data/entity_mapper/*.json "$OUT/entity_mapper/"
# the English tag refiner, trained by scripts/mlp-train-en.sh
cp -u "$ROOT/scripts/mlp-data/en/refiner.bin" "$OUT/en/"
if [[ -n "$INSTALL" ]]; then
  # a copy, so the checkout can go
  mkdir -p "$INSTALL"
  cp -R -p "$OUT/." "$INSTALL/"
  OUT="$INSTALL"
fi
echo "language data ready in $OUT"
